# Part of the Sinter project.
"""Exceptions raised by the sinter package."""


class SinterError(Exception):
    """Base class of every error raised by sinter."""


class CompileError(SinterError):
    """The compiler rejected the program.

    `diagnostics` holds the compiler's messages, each with its
    `<source>:line:col` location.
    """

    def __init__(self, diagnostics):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


class OptionError(SinterError, ValueError):
    """A compile option is unknown or has an invalid value (the message
    names it), or compile() got an argument of the wrong type."""


class LoadError(SinterError):
    """An artifact directory is missing, incomplete or of another format."""


class ArgumentError(SinterError, ValueError):
    """A call's arguments do not match the compiled function's signature."""


class FunctionNotFoundError(SinterError, LookupError):
    """The artifact has no function of that name."""
