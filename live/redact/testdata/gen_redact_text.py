"""Writes redact_text.json: CPython 3.11 re.sub with the three redaction patterns quoted in
shared/spec/reference/vibe-security.md §2.4, applied in order, on random strings built from
tricky fragments. live/redact_test.go compares RedactText with it.
    python3 gen_redact_text.py > redact_text.json
"""
import json, random, re, sys

BEARER = re.compile(r"\b(?P<scheme>bearer)\s+(?P<value>[A-Za-z0-9._~+/-]+=*)", re.IGNORECASE)
KV = re.compile(
    r"(?P<q>[\"']?)\b(?P<name>api[_-]?key|api[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|bearer[_-]?token|id[_-]?token|session[_-]?token|client[_-]?secret|secret[_-]?key|private[_-]?key|app[_-]?secret|passphrase|password|passwd|authorization|secret|token)\b(?P=q)(?P<sep>\s*[:=]\s*)(?![\"']?\[redacted\][\"']?|bearer\b)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;{}\[\]()\"']+)",
    re.IGNORECASE)
TOKENS = re.compile(r"(?<![A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[baprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|pypi-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})(?![A-Za-z0-9_-])")

def redact(s):
    s = BEARER.sub(lambda m: m.group("scheme") + " [redacted]", s)
    def kv(m):
        v = m.group("value")
        vq = v[0] if v[:1] in ("\"", "'") else ""
        return m.group("q") + m.group("name") + m.group("q") + m.group("sep") + vq + "[redacted]" + vq
    s = KV.sub(kv, s)
    return TOKENS.sub("[redacted]", s)

frags = ["api_key", "API-KEY", "apikey", "apı_key", "APİ_KEY", "secret", "Secret_Key", "token", "tokens",
         "auth_token", "Authorization", "authorization", "password", "passwd", "passphrase", "client-secret",
         "id_token", "private_key", "app_secret", "bearer", "Bearer", "BEARER", "refresh-token", "session_token",
         "=", ":", " = ", ": ", ":=", "\t", "\n", " ", "\u3000", "\u00a0", "\"", "'", "[redacted]", "[REDACTED]",
         "abc123", "x", "hunter2", "(v)", "{", "}", ",", ";", "é", "中文", "_", "-", ".", "==", "sk-",
         "abcdefghijklmnopqrstuvwxyz", "ghp_", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "xoxb-", "1234567890",
         "AKIA", "ABCDEFGHIJKLMNOP", "pypi-", "eyJ", "eyJhbGciOiJIUzI1NiJ9", "sſK", "\u212a", "Ω",
         "my_token", "x-api-key", "OPENAI_API_KEY", "basic", "Token", "/", "+", "~"]
random.seed(1130)
cases = []
seen = set()
names = frags[:24]
seps = ["=", ":", " = ", ": ", ":=", "\t:\t", " :", "=\n"]
values = ["abc", "\"q v\"", "'q v'", "\"open", "[redacted]", "'[Redacted]'", "bearer x", "Bearer", "(x)",
          "sk-abcdefghijklmnopqrstuvwxyz", "a,b", "é中", "x==", ""]
def structured():
    return (random.choice(["", " ", "\"", "'", "x", "_", "é", "-"]) + random.choice(["", "\"", "'"]) +
            random.choice(names) + random.choice(["", "\"", "'"]) + random.choice(seps) +
            random.choice(values) + random.choice(["", " tail", ",", "\n", "x"]))
while len(cases) < 8000:
    if random.random() < 0.5:
        s = structured()
    else:
        s = "".join(random.choice(frags) for _ in range(random.randint(1, 9)))
    if s in seen:
        continue
    seen.add(s)
    cases.append({"input": s, "expected": redact(s)})
json.dump(cases, sys.stdout, ensure_ascii=False, indent=0)
