"""Errors raised by the MJCF compiler and the physics core."""


class ModelError(ValueError):
    """A model could not be compiled: names the file, line, element and attribute at fault."""

    def __init__(self, message, file=None, line=None, element=None, attribute=None):
        self.message = message
        self.file = file
        self.line = line
        self.element = element
        self.attribute = attribute
        super().__init__(self._format())

    def _format(self):
        where = []
        if self.file is not None:
            where.append(str(self.file) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.element is not None:
            where.append(f"<{self.element}>")
        if self.attribute is not None:
            where.append(f"attribute '{self.attribute}'")
        return (": ".join([" ".join(where), self.message])) if where else self.message


class UnsupportedError(ModelError):
    """A feature MuJoCo has that numjoco parses but does not simulate (yet): raised at load time."""
