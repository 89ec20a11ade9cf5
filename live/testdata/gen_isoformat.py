"""Writes isoformat.json: what CPython 3.11's datetime.fromisoformat does with many strings.

Used by live/expiry_test.go to check ParseExpiry's port of the grammar. Run with python3.11:
    python3 gen_isoformat.py > isoformat.json
"""
import json, random, sys
from datetime import datetime, timezone

random.seed(20261130)
parts_date = ["2026-06-01", "20260601", "2026-W22", "2026W22", "2026-W22-3", "2026W223",
              "2026-W53", "2020-W53-7", "2026-02-29", "2024-02-29", "2026-13-01", "0000-01-01",
              "2026-06-1", "2026-0601", "202606-01", "2026-W5", "9999-12-31", "2026-W00"]
seps = ["T", " ", "x", "\u3000", "t", "", "TT", "-", ":"]
times = ["15", "15:00", "15:00:00", "1500", "150000", "15:00:00.1", "15:00:00.123456",
         "15:00:00.1234567", "15:00:00,5", "150000.123", "15:00:00:12", "1500001", "15:0000",
         "24:00", "23:59:59.999999", "15:", "15:00:", "15:00:00.", "15:60", "1", "",
         "15:00:00.12a", "15.5", "15,5"]
tzs = ["", "Z", "z", "+00:00", "-00:00", "+01:00", "+0100", "+01", "-05:30", "+01:00:30",
       "+01:00:30.5", "+24:00", "+23:59", "+01:75", "Z ", "+1", "+01:", "ZZ", "-", "+"]

def run(s):
    try:
        d = datetime.fromisoformat(s)
    except Exception:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=timezone.utc)
    delta = d - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds

cases = {}
for d in parts_date:
    cases[d] = run(d)
    for sep in seps:
        for t in times:
            for tz in tzs:
                if random.random() < 0.15:
                    s = d + sep + t + tz
                    cases[s] = run(s)
extra = ["2026-06-01T15:00:00Z", " 2026-06-02T00:00:00Z", "2026-06-01T15:00:01z", "", "not-a-date",
         "20260602T000000Z", "2026-06-01", "2026-06", "2026060", "2026W22", "2026-W2", "2026-W22-",
         "2026-06-01T", "2026-06-01T-05:00", "2026-06-01T15:00:00+01:00:30.123456"]
for s in extra:
    cases[s] = run(s)
json.dump([{"input": k, "epoch_us": v} for k, v in sorted(cases.items())], sys.stdout, ensure_ascii=False, indent=0)
