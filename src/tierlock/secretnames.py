"""A value given to a credential name: ``DB_PASSWORD=hunter2``, ``--api-key=...``, ``?token=...``, ``--token abc``.

The runtime config refuses a credential name in ``env`` (RC009); the same assignment written as an
argument (``env PGPASSWORD=... psql``, ``docker run -e API_TOKEN=...``, ``--password=...``) or in a
URL's query (``?access_token=...``) is the same credential saved. Found when a name of letters,
digits, ``_`` and ``-`` that *ends* in a credential word (so ``--token-file=PATH`` and
``TOKENIZERS_PARALLELISM=false`` are not), is a well-known password variable, or ends in ``_pass``,
``_pwd`` or ``_pat``, is followed by ``=`` and a value: at least three characters up to a space,
a quote, ``&``, ``;``, ``,``, ``|``, ``<`` or ``>``. An option (a name that starts with ``-``) may
be followed by spaces instead of ``=`` (``--password hunter2``, ``-token abc``): then a value that is
a metavariable (``--token TOKEN``, ``[--token TOKEN]``: capitals and ``_``, then closing marks) or a
``key=value`` specification (``--secret id=npmrc,src=...``) is not one either. A value that refers to
a credential instead of being one is not: a variable (``$TOKEN``, ``%TOKEN%``), a file (``@file``, ``/run/secrets/x``,
``~/x``, ``file:``, ``env:``, ``fd:``), a mask (``****``, ``[redacted]``), a boolean or ``none``.

Part of the one linear-time search of :mod:`tierlock.secretshapes`: each candidate ``=`` (or run of at
most eight spaces or tabs) is found by a
pattern of bounded length, its name read back at most :data:`NAME_MAX` characters, and its value
measured once; the search goes on after the value.
"""

from __future__ import annotations

from collections.abc import Iterator

from tierlock.secretkeys import LazyPattern, Span, run_end, run_of

#: The words of a credential's name (lower case), in RC009's order: a name holding one anywhere is refused in ``env``
#: (:data:`tierlock.validators.credentials.CREDENTIAL_WORDS`, with ``bearer``).
WORDS = (
    *("token", "secret", "password", "api_key", "apikey", "credential", "passwd", "passphrase"),
    *("private_key", "privatekey", "access_key", "accesskey", "auth_key", "authkey", "signing_key", "client_key"),
    "session_key",
)
#: Name endings (lower case, ``-`` read as ``_``) of a credential: the words above, and the endings that only end one.
ENDINGS = (*WORDS, "credentials", "secret_key", "secretkey", "_pass", "_pwd", "_pat")
#: Whole names of well-known password variables (RC009's list), lower case.
WHOLE = frozenset({"sshpass", "mysql_pwd", "rediscli_auth", "npm_config__auth", "pgpass", "ldappass"})
#: What a text must hold (lowered) to be searched: the last word of every name above, then ``=``, a space or a tab.
_ASSIGNED = (
    *("token=", "secret=", "password=", "passwd=", "phrase=", "credential=", "credentials=", "key="),
    *("pass=", "pwd=", "pat=", "auth="),
)
CUES = (*_ASSIGNED, *(cue.replace("=", gap) for gap in " \t" for cue in _ASSIGNED))
NAME_MAX = 128
#: How much of a value tells whether it is one (longer than every word of :data:`_NOT_A_VALUE`).
HEAD = 8
_CANDIDATE = LazyPattern(r"(?i:token|secret|passw(?:or)?d|phrase|credentials?|key|pass|pwd|pat|auth)(=|[ \t]{1,8})")
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_VALUE = "^\\s\"'`&;,|<>"
_NOT_A_VALUE = frozenset({"true", "false", "none", "null", "yes", "off"})
_REFERENCES = ("$", "%", "@", "/", "~", "*", "[", "{", "(", "file:", "env:", "fd:")
_METAVARIABLE = LazyPattern(r"[A-Z_]+[\])}.:]*\Z")
_SPECIFICATION = LazyPattern(r"[A-Za-z_][\w.-]*=[^=]")


def credential_name(name: str) -> bool:
    """Whether *name* (as written before ``=``) names a credential."""
    norm = name.lower().replace("-", "_").lstrip("_")
    return norm in WHOLE or norm.endswith(ENDINGS)


def _is_value(head: str) -> bool:
    """Whether a value that starts with *head* (its first :data:`HEAD` characters, or all of it) is one."""
    lowered = head.lower()
    return len(head) >= 3 and lowered not in _NOT_A_VALUE and not lowered.startswith(_REFERENCES)


def option_value(value: str) -> bool:
    """Whether *value*, the argument after an option that names a credential (``--password VALUE``), is one:
    not another option, a reference, a metavariable (``TOKEN``) or a ``key=value`` specification."""
    return (
        _is_value(value[:HEAD])
        and not value.startswith("-")
        and _METAVARIABLE.match(value) is None
        and _SPECIFICATION.match(value) is None
    )


#: First words of an option that is a switch, not a credential's name (``--ask-pass``, ``--with-token``,
#: ``--no-password``, ``--prompt-password``): the next argument is the command's own.
SWITCH_HEADS = frozenset({"ask", "prompt", "no", "with", "use", "read", "require", "show", "print", "skip"})


def credential_option(arg: str) -> bool:
    """Whether the argument *arg* is an option (``--password``, ``-token``) whose next argument is a credential:
    a name that ends in a credential word (:func:`credential_name`) and is no switch (:data:`SWITCH_HEADS`)."""
    name = arg.lstrip("-")
    if not arg.startswith("-") or not name or "=" in arg or not credential_name(name):
        return False
    return name.replace("_", "-").partition("-")[0].lower() not in SWITCH_HEADS


def assigned(text: str) -> Iterator[Span]:
    """The values given to credential names in *text* (the value only: the name stays readable).

    A value is measured to its end only once it is known to be one (its head tells): then the search goes
    on after it, so no character is measured twice. A value in quotes (``API_TOKEN="..."``, ``--password
    'x y'``) ends at the closing quote of its line."""
    value_run = run_of(_VALUE)
    i = 0
    while (m := _CANDIDATE.search(text, i)) is not None:
        eq, at = m.start(1), m.end()
        i = at
        before = text[max(0, eq - NAME_MAX) : eq]
        start = eq - (len(before) - len(before.rstrip(_NAME_CHARS)))  # the name: read back, in C
        spaced = text[eq] != "="
        if start > m.start() or not (credential_option if spaced else credential_name)(text[start:eq]):
            continue
        if at < len(text) and text[at] in "\"'":
            found = _quoted(text, at)
            if found is None or (spaced and not option_value(text[found[0] : found[1]])):
                continue
            yield found[0], found[1], "value of a credential name"
            i = found[1] + 1
            continue
        head = value_run.match(text, at, at + HEAD)
        if head is None or not _is_value(head.group()):
            continue
        end = run_end(value_run, text, at)
        if spaced and not option_value(text[at:end]):
            continue
        yield at, end, "value of a credential name"
        i = end


def _quoted(text: str, at: int) -> tuple[int, int] | None:
    """The value inside the quote that opens at *at* (start, end), when it is one: up to the closing quote on
    its line, else (a quote left open) the run of value characters after it. (The search for the closing quote
    stops at the next quote of its kind, at the latest the next candidate's of that kind: each character is
    searched at most once for each kind of quote.)"""
    quote = text[at]
    close = text.find(quote, at + 1)
    end = close if close >= 0 else len(text)
    if not _is_value(text[at + 1 : min(end, at + 1 + HEAD)]):
        return None
    if close < 0 or text.find("\n", at + 1, close) >= 0:  # (up to the first line end: the value ends there)
        return at + 1, run_end(run_of(_VALUE), text, at + 1)
    return at + 1, close
