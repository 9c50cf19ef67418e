"""Fake credentials built at run time (no literal key ever sits in the source), for the
security tests. Each carries a marker so a test can assert it never reaches any output."""

from __future__ import annotations

import random
import string

_RND = random.Random(20261122)


def aws_key() -> str:
    """An AWS-shaped access key id (never the documented EXAMPLE one)."""
    return "AK" + "IA" + "".join(_RND.choice(string.ascii_uppercase + string.digits) for _ in range(15)) + "Q"


def pem_body(n: int = 256) -> str:
    alphabet = string.ascii_letters + string.digits + "+/"
    body = "".join(_RND.choice(alphabet) for _ in range(n - 8))
    return body[:40] + "Ab3Cd5Ef" + body[40:]  # digits and both cases for sure


def pem_header(kind: str = "RSA ") -> str:
    return "-----" + "BEGIN " + kind + "PRIVATE " + "KEY-----"


def pem_footer(kind: str = "RSA ") -> str:
    return "-----" + "END " + kind + "PRIVATE " + "KEY-----"


def pem_block(body: str | None = None) -> str:
    body = body or pem_body()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "\n".join([pem_header(), *lines, pem_footer()]) + "\n"
