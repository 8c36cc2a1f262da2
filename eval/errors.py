"""Errors raised by scoring: each message says what was wrong and what to do about it."""


class EvalError(ValueError):
    """A run directory, a score file or an argument cannot be used for scoring."""


class TemplateError(EvalError):
    """A judge prompt template is missing, unknown, or uses a placeholder the protocol does not fill."""


class JudgeError(EvalError):
    """A judge failed or replied with something its protocol cannot parse."""
