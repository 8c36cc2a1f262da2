"""GePBench data engine: shapes under the paper's rules, relations, constructive placement, clean and hand-drawn
rendering with the paper's noise, six aspects of up to three four-choice questions each in the released
benchmark's wording (or mcot's), balanced letters, and a pixel validator."""

from mcot.benchmarks.generators.gepbench.engine import GenerationStats, generate, make_figure, plan
from mcot.benchmarks.generators.gepbench.noise import NOISE_MODELS, NoiseModel
from mcot.benchmarks.generators.gepbench.placement import Figure, PlacementError, place_figure
from mcot.benchmarks.generators.gepbench.questions import ASPECTS, WORDINGS, LetterBalancer, Question, make_questions
from mcot.benchmarks.generators.gepbench.validator import PixelValidator, Verdict

__all__ = [
    "ASPECTS",
    "NOISE_MODELS",
    "WORDINGS",
    "Figure",
    "GenerationStats",
    "LetterBalancer",
    "NoiseModel",
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
