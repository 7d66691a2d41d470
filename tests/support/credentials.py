"""Credential-shaped values for the validator's tests, and ordinary values that must stay accepted.

Every credential is assembled at run time (``"gh" + "p_" + ...``) so that no secret
scanner takes the test files for a leak. Each shape is realistic: random-looking
tails that mix capitals, small letters and digits, as issued tokens do.
"""

from __future__ import annotations

import base64
import json
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.validators import ValidationResult

_RNG = random.Random(20261130)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _tail(n: int, alphabet: str = _ALNUM, rng: random.Random = _RNG) -> str:
    body = [rng.choice(alphabet) for _ in range(n - 3)]
    return "Q" + "".join(body) + "z7"  # always one capital, one small letter, one digit


def shapes(rng: random.Random = _RNG) -> dict[str, str]:
    """One credential of every recognised shape, by name."""
    b64 = _ALNUM + "/+"
    return {
        "github": "gh" + "p_" + _tail(36, rng=rng),
        "github-oauth": "gh" + "o_" + _tail(36, rng=rng),
        "github-fine-grained": "github" + "_pat_" + _tail(60, _ALNUM + "_", rng),
        "aws-key-id": "AK" + "IA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)),
        "aws-session-key-id": "AS" + "IA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)),
        "aws-secret-key": "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "aws-secret-key-random": "".join(rng.choice(b64) for _ in range(37)) + "aZ9",
        "slack": "xo" + "xb-" + "1234567890-" + _tail(24, rng=rng),
        "slack-app": "xa" + "pp-1-A0" + "1ABCDEF23-4567890123456-" + _tail(32, rng=rng),
        "gitlab": "gl" + "pat-" + _tail(20, rng=rng),
        "npm": "np" + "m_" + _tail(36, rng=rng),
        "pypi": "py" + "pi-AgEIcHlwaS5vcmc" + _tail(40, rng=rng),
        "google": "AI" + "za" + _tail(35, rng=rng),
        "stripe": "sk" + "_live_" + _tail(24, rng=rng),
        "openai": "sk" + "-proj-" + _tail(48, rng=rng),
        "anthropic": "sk" + "-ant-api03-" + _tail(40, rng=rng),
        "hugging-face": "hf" + "_" + _tail(34, rng=rng),
        "jwt": "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + _tail(43, rng=rng),
        "url-password": "https://ci:" + _tail(12, rng=rng) + "@packages.example.invalid/simple",
        "url-user-with-at": "https://me@example.com:" + _tail(10, rng=rng) + "@git.example.invalid/r.git",
        "url-schemeless": "//proxyuser:" + _tail(10, rng=rng) + "@proxy.example.invalid:3128",
        "authorization-basic": "Authorization: Basic " + base64.b64encode(b"ci:" + _tail(10).encode()).decode(),
        "authorization-bearer": "Authorization: Bearer " + _tail(32, rng=rng),
        "bearer": "Bearer " + _tail(32, rng=rng),
        "basic": "Basic " + base64.b64encode(b"deploy:" + _tail(12).encode()).decode(),
        "pem-rsa": "-----BEGIN RSA "
        + "PRIVATE KEY-----\nMIIEow"
        + _tail(20, rng=rng)
        + "\n-----END RSA PRIVATE KEY-----",
        "pem-pkcs8": "-----BEGIN " + "PRIVATE KEY-----",
        "pem-encrypted": "-----BEGIN ENCRYPTED " + "PRIVATE KEY-----",
        "pem-ec": "-----BEGIN EC " + "PRIVATE KEY-----",
        "pem-dsa": "-----BEGIN DSA " + "PRIVATE KEY-----",
        "openssh": "-----BEGIN OPENSSH "
        + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "pgp": "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----",
        "ssh2": "---- BEGIN SSH2 ENCRYPTED " + "PRIVATE KEY ----",
        "putty": "PuTTY-User-" + "Key-File-3: ssh-ed25519",
        # Added with the cloud shapes; after the others, so their values stay what they were.
        "basic-glued-x": "Basic dXNlcjpXOFVN" + "dGhyQUVTMTM2ZktC" + "x",
        "basic-glued-9": "Basic dXNlcjpXOFVN" + "dGhyQUVTMTM2ZktC" + "9",
        "basic-glued-slash": "Basic dXNlcjpXOFVN" + "dGhyQUVTMTM2ZktC" + "/",
        "basic-empty-user": "Basic " + base64.b64encode(b":" + _tail(24, rng=rng).encode()).decode(),
        "azure-storage-key": _azure_key(rng),
        "azure-connection-string": "DefaultEndpointsProtocol=https;AccountName=ciassets;Account"
        + "Key="
        + _azure_key(rng)
        + ";EndpointSuffix=core.windows.net",
        "azure-service-bus": "Endpoint=sb://ci.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccess"
        + "Key="
        + _b64(44, rng),
        "azure-sas": "https://ci.blob.core.windows.net/c/b.tar?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-01&si"
        + "g="
        + _tail(43, _ALNUM + "+/", rng).replace("+", "%2B").replace("/", "%2F")
        + "%3D",
        "gcp-service-account": '{"type": "service_account", "project_id": "ci", "private_'
        + 'key": "-----BEGIN '
        + "PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC"
        + _b64(64, rng)
        + '\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@ci.iam.gserviceaccount.com"}',
        "gcp-private-key-bare": '{"private_' + 'key": "' + _b64(120, rng) + '"}',
        "private-key-der-rsa": "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC" + _b64(120, rng),
        "private-key-der-pkcs1": "MIIEowIBAAKCAQEA" + _b64(120, rng),
        "private-key-der-ec": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0w" + _b64(80, rng),
        "private-key-der-ed25519": "MC4CAQAwBQYDK2VwBCIEI" + _b64(43, rng),
        "datadog-api-key": "DD_API_" + "KEY=" + _hex(32, rng),
        "datadog-app-key": "DD-APPLICATION-" + "KEY: " + _hex(40, rng),
        "sendgrid": "SG." + _tail(22, _ALNUM + "_-", rng) + "." + _tail(43, _ALNUM + "_-", rng),
        "twilio-api-key": "S" + "K" + _hex(32, rng),
        "twilio-account": "A" + "C" + _hex(32, rng),
        "twilio-auth-token": "TWILIO_AUTH_" + "TOKEN=" + _hex(32, rng),
        "hugging-face-letters": "hf"
        + "_"
        + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(33))
        + "Q",
        "pypi-any": "py" + "pi-" + _tail(80, _ALNUM + "_-", rng),
        "assigned-env": "PGPASS" + "WORD=" + _tail(16, rng=rng),
        "assigned-option": "--api-" + "key=" + _tail(24, rng=rng),
        "assigned-query": "https://api.example.invalid/v1?access_" + "token=" + _tail(20, rng=rng) + "&page=2",
        "assigned-pat": "GH_" + "PAT=" + _tail(12, rng=rng),
        "assigned-quoted": "API_" + 'TOKEN="' + _tail(18, rng=rng) + '"',
    }


def _b64(n: int, rng: random.Random) -> str:
    """*n* characters of random base64 (capitals, small letters and digits all there)."""
    return _tail(n, _ALNUM + "+/", rng)


def _hex(n: int, rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n - 2)) + "a7"


def _azure_key(rng: random.Random) -> str:
    """64 random bytes in base64: 86 characters and ``==``, as Azure storage account keys are written."""
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()


#: Glue: what a token may be stuck to (word characters included: no boundary protects).
GLUES = ("", "-u", "_", "9", "x", "--token=", "Token:", "a/b/")

#: Ordinary values that must stay accepted in any string field.
BENIGN: tuple[str, ...] = (
    "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "123e4567-e89b-12d3-a456-426614174000",
    "{123E4567-E89B-12D3-A456-426614174000}",
    base64.b64encode(b"The quick brown fox jumps over").decode(),
    base64.b64encode(b"hello world, this is a test fixture").decode(),
    base64.b64encode(b"lorem ipsum dolor sit amet, consectetur").decode(),
    base64.b64encode(b"basic test data for the parser suite").decode(),
    "packages/MyApp2/src/components/Widget3/x",
    "src/tierlock/validators/credentials.py",
    "/home/runner/work/project/project/tests/fixtures/data/very/long/path/to/a/file_name_123.json",
    "C:\\Users\\runner\\AppData\\Local\\Temp\\pytest-of-runner\\pytest-0\\test_x0\\file.txt",
    "https://user@example.invalid/simple",
    "https://example.invalid/path:with@colon",
    "git@github.com:org/repo.git",
    "ssh://git@github.com/org/repo.git",
    "--mask-generated-files-in-output",
    "task-runner-generated-output-for-ci",
    "desk-top-layout-configuration-v2",
    "--basic-auth-disabled",
    "Basic usage example",
    "Authorization: Bearer $GITHUB_TOKEN",
    "checks the Authorization: header handling",
    "Authorization: none",
    "Bearer ${TOKEN}",
    "akia",
    "ghp_",
    "eyJ",
    "-----BEGIN CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
    "v1.2.3+build.20261130",
    "pytest -q -k 'not slow' --maxfail=1",
    "numpy==2.1.3 --hash=sha256:4f2a2d7f8c3e2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a493",
    "PYTHONHASHSEED=0",
    "2026-11-30T14:36:30Z",
    "https://files.pythonhosted.org/packages/ab/cd/ef/numpy-2.1.3-cp311-cp311-manylinux_2_17_x86_64.whl",
    # Near misses of the cloud shapes.
    "sha512-" + base64.b64encode(bytes(range(64))).decode(),  # a Subresource Integrity digest (npm)
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC" + "7vbqajDhA3" * 20 + "w== user@host",  # under 256: a label
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEm" + "a7Q" * 20 + "= ci",
    "design=compact-layout-for-the-dashboard-widgets",
    "--sig=ed25519",
    "DISK0123456789ABCDEF0123456789ABCDEF",
    "TASK_RUNNER_PARALLELISM",
    "ACCESS_LOG_FORMAT=combined",
    "AccountName=ciassets;EndpointSuffix=core.windows.net",
    "dd_apikey_rotation_days=30",
    # Near misses of a credential name given a value: a name that only contains the word, a reference.
    "--token-file=/run/secrets/registry",
    "TOKENIZERS_PARALLELISM=false",
    "MAX_TOKENS=4096",
    "--password=$DB_PASSWORD",
    "PGPASSWORD=${PGPASSWORD}",
    "--api-key=@api-key.txt",
    "--password-stdin",
    "--no-password",
    "sort_key=name",
    "--auth=basic",
    "USE_TOKEN=true",
    "twilio-python",
    "SG.example",
    "pypi-simple-index-mirror-configuration-for-the-corporate-proxy",
    "hf_hub_download_timeout_seconds_for_large_models",
    "Basic usage: run --basic with 9 workers",
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAAOC",
    # Near misses of a credential given to its option with a space, or in quotes.
    "usage: twine upload [--password PASSWORD] [--token TOKEN]",
    "--token $TWINE_TOKEN",
    "--ask-pass site.yml",
    "gh auth login --with-token --hostname github.com",
    'TOKEN="" API_TOKEN="$API_TOKEN"',
)


def every_output(result: ValidationResult) -> str:
    """What a validation prints in each of its four formats (text, JSON, GitHub annotations, SARIF), joined."""
    from tierlock.validators.renderers import github_lines, json_document, sarif_document, text_lines

    return "\n".join(
        [
            "\n".join(text_lines(result)),
            json.dumps(json_document(result)),
            "\n".join(github_lines(result)),
            json.dumps(sarif_document(result)),
        ]
    )
