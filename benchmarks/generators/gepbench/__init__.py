"""GePBench data engine: shapes under the paper's rules, relations, constructive placement, clean and hand-drawn
rendering, six aspects of four-choice questions with balanced letters, and a pixel validator."""

from benchmarks.generators.gepbench.engine import GenerationStats, generate, make_figure, plan
from benchmarks.generators.gepbench.placement import Figure, PlacementError, place_figure
from benchmarks.generators.gepbench.questions import ASPECTS, LetterBalancer, Question, make_questions
from benchmarks.generators.gepbench.validator import PixelValidator, Verdict

__all__ = [
    "ASPECTS",
    "Figure",
    "GenerationStats",
    "LetterBalancer",
    "PixelValidator",
    "PlacementError",
    "Question",
    "Verdict",
    "generate",
    "make_figure",
    "make_questions",
    "place_figure",
    "plan",
]
