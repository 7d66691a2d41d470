"""Text measured the way JavaScript measures it (the runtime that reads these configs).

``String.prototype.trim`` removes the ECMA-262 WhiteSpace and LineTerminator
characters, which are not Python's ``str.isspace`` set: a lone U+FEFF is blank
in JavaScript but not in Python, while U+001C-U+001F and U+0085 are blank in
Python but not in JavaScript. Lengths count UTF-16 code units (``"😀".length``
is 2).
"""

from __future__ import annotations

#: ECMA-262 WhiteSpace (incl. U+FEFF and the Zs category) and LineTerminator.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """*text* trimmed as ``String.prototype.trim`` trims it."""
    return text.strip(JS_WHITESPACE)


def utf16_length(text: str) -> int:
    """The length of *text* in UTF-16 code units (JavaScript's ``.length``)."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF) if not text.isascii() else len(text)
