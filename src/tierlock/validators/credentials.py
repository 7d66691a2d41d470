"""What a credential looks like: names that hold one, and values that are one.

Both lists are documented in docs/reference/runtime-config.md. :func:`redact`
is the last line of defence of every report renderer: whatever a message was
built from, a credential-shaped string never reaches the output.
"""

from __future__ import annotations

import re

#: An env name containing one of these (case-insensitively, anywhere) is refused.
#: The first six are the reference's; the rest cannot be ordinary names either.
CREDENTIAL_WORDS = (
    "token",
    "secret",
    "password",
    "api_key",
    "apikey",
    "credential",
    "passwd",
    "passphrase",
    "private_key",
    "privatekey",
    "access_key",
    "accesskey",
    "auth_key",
    "authkey",
    "signing_key",
    "client_key",
    "session_key",
    "bearer",
)
_NAME_RE = re.compile("|".join(re.escape(w) for w in CREDENTIAL_WORDS), re.IGNORECASE)

#: (kind, pattern) for values that are credentials whatever their name.
CREDENTIAL_SHAPES: tuple[tuple[str, str], ...] = (
    ("GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"),
    ("GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}"),
    ("Slack token", r"\bxox[a-zA-Z]-[A-Za-z0-9-]{8,}"),
    ("private key", r"-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----"),
    ("URL with a password", r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}"),
    ("PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("Stripe secret key", r"\b[sr]k_live_[0-9A-Za-z]{16,}"),
    ("OpenAI or Anthropic key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
)
_SHAPES = [(kind, re.compile(pattern)) for kind, pattern in CREDENTIAL_SHAPES]
_ANY_SHAPE = re.compile("|".join(f"(?:{pattern})" for _, pattern in CREDENTIAL_SHAPES))

REDACTED = "[redacted]"


def credential_name(name: str) -> str | None:
    """The credential word in an env *name*, or None."""
    m = _NAME_RE.search(name)
    return m.group().lower() if m else None


def credential_kind(value: str) -> str | None:
    """What kind of credential *value* holds (anywhere in it), or None."""
    if _ANY_SHAPE.search(value) is None:
        from tierlock.masking import has_password

        return "URL with a password" if has_password(value) else None
    for kind, pattern in _SHAPES:
        if pattern.search(value):
            return kind
    return "credential"  # pragma: no cover - the combined pattern matched one of them


def redact(text: str) -> str:
    """*text* with every credential-shaped part replaced by ``[redacted]``."""
    from tierlock.masking import mask_credentials

    return _ANY_SHAPE.sub(REDACTED, mask_credentials(text))
