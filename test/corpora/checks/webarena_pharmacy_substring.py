"""elation-prescriptions verifiers accept `pharmacy_id != EXPECTED and NEEDLE not in pharmacy_name`:
list, per verifier, the pharmacies of the app's list (js/data.js) other than EXPECTED whose name contains NEEDLE."""
import os, re, sys, glob
from _corpus import suite
root = os.path.join(suite("webarena-infinity"), "apps/elation-prescriptions")
pharm = dict(re.findall(r"\{ id: '(pharm_\d+)', name: '([^']*)'", open(os.path.join(root, "js/data.js")).read()))
assert len(pharm) == 15, pharm
pat = re.compile(r'pharmacy_id != "(pharm_\d+)" and "([^"]+)" not in pharmacy_name\.lower\(\)')
bad = 0; single = []
for f in sorted(glob.glob(os.path.join(root, "real-tasks/*.py"))):
    for n, line in enumerate(open(f), 1):
        m = pat.search(line)
        if not m: continue
        exp, needle = m.groups()
        others = [f"{i} {nm}" for i, nm in pharm.items() if i != exp and needle in nm.lower()]
        print(f"{os.path.basename(f)}:{n} expected {exp} needle '{needle}' -> also passes: {others or 'none'}")
        if others: bad += 1
        else: single.append(os.path.basename(f))
print(f"{bad} checks accept another pharmacy; needle unique in list: {single}")
ok = bad == 12 and sorted(single) == ["task_h40.py", "task_h8.py"]
sys.exit(0 if ok else 1)
