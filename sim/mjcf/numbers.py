"""Numbers in MJCF / URDF attributes, read as MuJoCo 3.17 reads them (mjXUtil::ReadAttr: strtod / strtol on
whitespace-separated tokens), not as Python's float() / int() would.

MuJoCo accepts C's forms: decimal, hexadecimal floats (0x1.8p3), inf / infinity / nan (any case, nan(chars));
it rejects a token strtod cannot read whole ('1_0', Unicode digits, '1e'), a real out of double range or below
the smallest normal double (ERANGE: 1.8e308, 1e-310, 1e-400; "number is too large"), and an integer outside
int32.  Tokens are separated by ASCII whitespace only (a no-break space is part of a token, as in C's isspace).
"""

import re

_SPLIT = re.compile(r"[ \t\n\r\f\v]+")
_DEC = re.compile(r"[+-]?(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE][+-]?\d+)?", re.ASCII)
_HEX = re.compile(r"[+-]?0[xX](?:([0-9a-fA-F]+)\.?([0-9a-fA-F]*)|\.([0-9a-fA-F]+))(?:[pP][+-]?\d+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE | re.ASCII)
_INT = re.compile(r"[+-]?\d+", re.ASCII)
_MIN_NORMAL = 2.2250738585072014e-308
INT32 = (-(2**31), 2**31 - 1)


class NumberError(ValueError):
    """A token MuJoCo would not read: .reason is MuJoCo's wording ('bad format', 'number is too large')."""

    def __init__(self, token, reason):
        super().__init__(f"{reason}: '{token}'")
        self.token = token
        self.reason = reason


def split(text):
    """Tokens of an attribute string (ASCII whitespace only)."""
    return [t for t in _SPLIT.split(text) if t]


def real(tok):
    """A float as strtod reads the whole token, range-checked as MuJoCo (NaN / inf are returned as such)."""
    m = _DEC.fullmatch(tok)
    if m:
        v = float(tok)
        digits = (m.group(1) or "") + (m.group(2) or "") + (m.group(3) or "")
    else:
        m = _HEX.fullmatch(tok)
        if m:
            v = float.fromhex(tok)
            digits = (m.group(1) or "") + (m.group(2) or "") + (m.group(3) or "")
        elif _SPECIAL.fullmatch(tok):
            return float("nan") if "n(" in tok.lower() or tok.lower().lstrip("+-") == "nan" else float(tok)
        else:
            raise NumberError(tok, "bad format")
    if v in (float("inf"), float("-inf")) or (v != 0.0 and abs(v) < _MIN_NORMAL) or (v == 0.0 and digits.strip("0")):
        raise NumberError(tok, "number is too large")  # ERANGE (MuJoCo says 'too large' for both ends)
    return v


def integer(tok):
    """An int32 as strtol reads the whole token."""
    if not _INT.fullmatch(tok):
        raise NumberError(tok, "bad format")
    v = int(tok)
    if not INT32[0] <= v <= INT32[1]:
        raise NumberError(tok, "number is too large")
    return v
