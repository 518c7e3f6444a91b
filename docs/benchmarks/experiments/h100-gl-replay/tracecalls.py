#!/usr/bin/env python3
"""Summarise a Go execution trace (graphbench -trace) per pass region: the
time goroutines spent in cgo calls, by call; with a region filter, one
pass's timeline and every pass's submits and longest poll.
Usage: tracecalls.py TRACE [REGION-SUBSTRING]  (needs the go tool)."""
import re, sys, collections, subprocess
path = sys.argv[1]
want = sys.argv[2] if len(sys.argv) > 2 else None
p = subprocess.Popen(["go", "tool", "trace", "-d=parsed", path], stdout=subprocess.PIPE, text=True)
ev = None
events = []
cur = None
for line in p.stdout:
    if line.startswith("M="):
        if cur: events.append(cur)
        cur = {"line": line.strip(), "stack": []}
    elif line.startswith("\t") and cur is not None and not line.startswith("\t\t"):
        cur["stack"].append(line.strip().split(" @ ")[0])
if cur: events.append(cur)
re_t = re.compile(r"Time=(\d+)")
re_g = re.compile(r" G=(-?\d+) ")
regions = []  # (name, g, start, end)
open_r = {}
sys_start = {}  # goid -> (t, fn)
calls = []  # (g, fn, start, end)
for e in events:
    l = e["line"]
    t = int(re_t.search(l).group(1)) if re_t.search(l) else 0
    if "RegionBegin" in l:
        name = re.search(r'Type="([^"]*)"', l).group(1)
        g = re_g.search(l).group(1)
        open_r[(g, name)] = t
    elif "RegionEnd" in l:
        name = re.search(r'Type="([^"]*)"', l).group(1)
        g = re_g.search(l).group(1)
        if (g, name) in open_r:
            regions.append((name, g, open_r.pop((g, name)), t))
    elif "StateTransition" in l and "GoID=" in l:
        gid = re.search(r"GoID=(\d+)", l).group(1)
        tr = re.search(r"GoID=\d+ (\w+)->(\w+)", l)
        if not tr: continue
        a, b = tr.groups()
        if b == "Syscall":
            fn = next((f for f in e["stack"] if "_Cfunc_" in f), e["stack"][0] if e["stack"] else "?")
            # the caller below the Cfunc
            sys_start[gid] = (t, fn.split(".")[-1], [f.split("/")[-1] for f in e["stack"][:8]])
        elif a == "Syscall" and gid in sys_start:
            s, fn, st = sys_start.pop(gid)
            calls.append((gid, fn, s, t, st))
        if b in ("Waiting", "Runnable", "Running", "Syscall", "NotExist") :
            pass
calls.sort(key=lambda c: c[2])
byname = collections.defaultdict(list)
for r in regions: byname[r[0]].append(r)
for name in sorted(byname):
    if want and want not in name: continue
    rs = byname[name]
    tot = sum(r[3]-r[2] for r in rs)
    agg = collections.Counter(); cnt = collections.Counter()
    for (_, g, s, e) in rs:
        for c in calls:
            if c[3] < s or c[2] > e: continue
            d = min(c[3], e) - max(c[2], s)
            key = (c[1], "region-g" if c[0] == g else "other-g")
            agg[key] += d; cnt[key] += 1
    print(f"{name}: {len(rs)} passes, {tot/len(rs)/1e3:.0f} us per pass")
    for k, v in agg.most_common(12):
        print(f"   {k[0]:40s} {k[1]:9s} {v/len(rs)/1e3:9.0f} us/pass  {cnt[k]/len(rs):7.1f} calls/pass")
if want:
    for name in sorted(byname):
        if want not in name: continue
        rs = byname[name]
        r = rs[len(rs)//2]
        print(f"--- {name}, one pass ({(r[3]-r[2])/1e3:.0f} us), calls >= 5 us or submits/polls:")
        n = 0
        for c in calls:
            if c[3] < r[2] or c[2] > r[3]: continue
            d = c[3]-c[2]
            if d < 5000 and "submit" not in c[1] and "poll" not in c[1].lower(): continue
            n += 1
            if n > 60: print("   ..."); break
            who = "region" if c[0] == r[1] else "g"+c[0]
            print(f"   +{(c[2]-r[2])/1e3:8.1f} us  {d/1e3:8.1f} us  {who:7s} {c[1]}")
if want:
    # The k-th submit of a pass, over the passes: its median start and
    # duration, which separate a submit's fixed cost from its per-dispatch
    # one when the submits carry known dispatch counts.
    print("=== submits by their order in a pass (median start and duration, us)")
    for name in sorted(byname):
        if want not in name: continue
        byk = collections.defaultdict(list)
        for r in byname[name]:
            subs = [c for c in calls if not (c[3] < r[2] or c[2] > r[3]) and "submit" in c[1].lower()]
            for k, c in enumerate(subs):
                byk[k].append(((c[2]-r[2])/1e3, (c[3]-c[2])/1e3))
        med = lambda xs: sorted(xs)[len(xs)//2]
        for k in sorted(byk):
            v = byk[k]
            print(f"{name}: submit {k+1}: {len(v)} passes, start +{med([a for a, _ in v]):7.1f}, takes {med([b for _, b in v]):7.1f}")
    print("=== per pass")
    for name in sorted(byname):
        if want not in name: continue
        for r in byname[name]:
            cs = [c for c in calls if not (c[3] < r[2] or c[2] > r[3])]
            subs = [c for c in cs if "submit" in c[1].lower()]
            polls = [c for c in cs if "poll" in c[1].lower()]
            mp = max(polls, key=lambda c: c[3]-c[2]) if polls else None
            print(f"{name}: {(r[3]-r[2])/1e3:8.0f} us; submits {len(subs)} taking {sum(c[3]-c[2] for c in subs)/1e3:6.0f} us (longest {max([c[3]-c[2] for c in subs] or [0])/1e3:6.0f}); polls {len(polls)}, longest {((mp[3]-mp[2])/1e3 if mp else 0):6.0f} us at +{((mp[2]-r[2])/1e3 if mp else 0):6.0f}")
