"""Compare numjoco with MuJoCo (the oracle, mujoco==3.17.0) on one corpus model (tests/corpus.py): a record of
what loads, what matches and the worst errors.  Used by tests/test_robot_corpus.py and benchmarks/bench_corpus.py.

    rec = check(entry)                        # in this process: a dict (JSON-serialisable), see RECORD below
    for rec in check_isolated(entries): ...   # each model in a worker process (a crash or a hang is a record)

What is checked, in order (a stage runs only when the ones before it allow):
 1. load: mujoco.MjModel.from_xml_path and sim.load_model on the same file.  MuJoCo refuses -> numjoco must refuse
    with sim.ModelError (sim.UnsupportedError, a ModelError too, is reported apart: it means "parsed, not
    simulated", not "invalid").  MuJoCo loads -> numjoco must load.
 2. model fields: tests/oracle.py's compare_models at FIELD_TOL (|ours - theirs| <= FIELD_TOL * (1 + |theirs|)
    elementwise), the fields MuJoCo lays out in qhull's order compared order-free (oracle.hull_mismatches).
 3. step: one sim.step of a fresh Data (a model with nv == 0 has no dynamics: the model fields are its check).
 4. contact states: MuJoCo runs from keyframe 0 (qpos0 without one) with random controls (uniform in ctrlrange,
    N(0, 1) for unlimited actuators) and a random qvel kick N(0, KICK) every KICK_EVERY steps; every
    STATE_GAP steps at least, a state in contact (ncon > 0 at mj_forward) is kept, until N_STATES are kept or
    MAX_ROLLOUT steps have run.  Each kept state (time, qpos, qvel, act, ctrl, applied forces, mocap, eq_active,
    userdata and qacc_warmstart: mjSTATE_INTEGRATION) is copied into a numjoco Data and sim.forward runs.
    Compared: ncon; the contact set (the multiset of ordered geom pairs, so counts per pair too); dist of the
    contacts of each pair (sorted, absolute error, <= DIST_TOL); qacc and qfrc_constraint (relative, <= ACC_RTOL).
 5. contact-free trajectory: contacts disabled on both (opt.disableflags |= mjDSBL_CONTACT), N_TRAJ steps from
    keyframe 0 / qpos0 with the same random controls (a fresh seeded stream); qpos and qvel compared after every
    step (relative, <= TRAJ_RTOL).  Along the way every step is also taken from MuJoCo's state (copied into a
    second numjoco Data before the step, mjSTATE_INTEGRATION as in 4.) and compared with MuJoCo's step: the
    one-step error.  A trajectory above TRAJ_RTOL whose one-step errors all stay within LOCAL_RTOL (rounding) is
    "chaotic": the model amplifies rounding differences (MuJoCo against itself with a 1e-15 nudge of qvel does
    too on the models measured, docs/corpus.md), a reasoned exception rather than a failure.

Relative error of a vector (qacc, qfrc_constraint, qpos, qvel):  max_i |a_i - b_i| / max(1, max_i |b_i|),
b being MuJoCo's: the largest component difference over the vector's scale, and absolute below scale 1 (a force
of 1e-12 against 0 is not an error).  NaN against a number is an infinite error.

RECORD keys: name, package, kind, source; mj_load / ours_load ("ok" or "<ExceptionType>: message"); load
("both", "both refuse", "ours refuses", "ours accepts", "wrong error"); sizes (nq nv nu ngeom nbody nmesh);
fields (number of mismatching fields), fields_detail (first messages); step ("ok", "static" or the exception);
nstates, ncon (summed over states), contact_mismatch (states whose contact set differs, with the first
difference in contact_detail), dist_err, qacc_err, qfrc_err; traj_steps (steps compared), traj_err,
traj_first_bad (first step above TRAJ_RTOL or None), traj_profile (error at steps 1, 10, 100, 300, 1000);
traj_local_err (the worst one-step error from MuJoCo's states); chaotic (the explanation, when that is why the
trajectory passes); status ("match", "chaotic", "refused (both)", "static", or "fail") and reasons (list of short
strings naming each failed check); seconds.
"""

import collections
import json
import os
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

# thresholds (issue 34)
FIELD_TOL = 1e-9  # model fields, elementwise |a - b| <= tol * (1 + |b|)
DIST_TOL = 1e-9  # contact dist, absolute
ACC_RTOL = 1e-6  # qacc, qfrc_constraint, relative (see module docstring)
TRAJ_RTOL = 1e-6  # contact-free trajectory qpos / qvel, relative
# chaos: a trajectory above TRAJ_RTOL is still MuJoCo's dynamics, amplified, when every one of its steps taken from
# MuJoCo's own state (copied in before the step) agrees with MuJoCo's step to LOCAL_RTOL, relative: rounding level
# (the models that match show one-step errors of 1e-16 to 1e-14).  Such a model is "chaotic", a reasoned exception
# with both measurements in its record; a step error above LOCAL_RTOL is a failure however chaotic the model.
LOCAL_RTOL = 1e-12
# contact-state search
N_STATES = 10
MAX_ROLLOUT = 3000
STATE_GAP = 20
KICK = 1.0
KICK_EVERY = 50
N_TRAJ = 1000
PROFILE_STEPS = (1, 10, 100, 300, 1000)
SEED = 0
LOAD_TIMEOUT = 180  # check_isolated: a numjoco load this slow is a failure (MuJoCo loads every model in < 3 s)

DETAIL = 4  # messages kept per list


def _err(e):
    msg = str(e).replace("\n", " | ")
    return f"{type(e).__name__}: {msg[:400]}"


def rel_err(a, b):
    """max |a - b| / max(1, max |b|) of two arrays (inf for a shape or NaN mismatch, 0 for empty)."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    na, nb = np.isnan(a), np.isnan(b)
    if (na != nb).any():
        return float("inf")
    ok = ~na
    if not ok.any():
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        d = float(np.max(np.abs(a[ok] - b[ok])))
        scale = max(1.0, float(np.max(np.abs(b[ok]))))
    return d / scale if np.isfinite(d) else float("inf")


def _random_ctrl(mm, rng):
    """(nu,) random controls: uniform in ctrlrange for limited actuators, N(0, 1) otherwise."""
    nu = mm.nu
    if nu == 0:
        return np.zeros(0)
    lo, hi = mm.actuator_ctrlrange[:, 0], mm.actuator_ctrlrange[:, 1]
    limited = (mm.actuator_ctrllimited == 1) | ((mm.actuator_ctrllimited == 2) & (hi > lo))
    u = rng.standard_normal(nu)
    uni = lo + (hi - lo) * rng.random(nu)
    return np.where(limited, uni, u)


def _mj_reset(mujoco, mm, md):
    if mm.nkey > 0:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    else:
        mujoco.mj_resetData(mm, md)


# fields of MjData copied into our Data for a state (mjSTATE_INTEGRATION's content, which our Data has)
STATE_FIELDS = (
    "qpos",
    "qvel",
    "act",
    "ctrl",
    "qfrc_applied",
    "xfrc_applied",
    "mocap_pos",
    "mocap_quat",
    "qacc_warmstart",
    "eq_active",
    "userdata",
)


def _copy_state(md, d):
    d.time = float(md.time)
    for name in STATE_FIELDS:
        v = np.asarray(getattr(md, name))
        if v.size == 0:
            continue
        if name not in d._arrays:
            raise KeyError(f"numjoco's Data has no '{name}' (MuJoCo's state has {v.size} entries)")
        setattr(d, name, v.reshape(np.shape(getattr(d, name))))


def contact_states(mujoco, mm, n=N_STATES, seed=SEED):
    """MuJoCo states in contact: [(MjData after mj_forward at the state)], see the module docstring."""
    rng = np.random.default_rng(seed)
    md = mujoco.MjData(mm)
    _mj_reset(mujoco, mm, md)
    out = []
    last = -STATE_GAP
    for t in range(MAX_ROLLOUT):
        if t % KICK_EVERY == 0 and mm.nv:
            md.qvel[:] += KICK * rng.standard_normal(mm.nv)
        md.ctrl[:] = _random_ctrl(mm, rng)
        mujoco.mj_step(mm, md)
        if (
            not (np.all(np.isfinite(md.qpos)) and np.all(np.isfinite(md.qvel)))
            or md.warning[mujoco.mjtWarning.mjWARN_BADQACC].number
        ):
            _mj_reset(mujoco, mm, md)
            continue
        if t - last >= STATE_GAP:
            mujoco.mj_forward(mm, md)
            if md.ncon > 0:
                snap = mujoco.MjData(mm)
                spec = mujoco.mjtState.mjSTATE_INTEGRATION
                st = np.empty(mujoco.mj_stateSize(mm, spec))
                mujoco.mj_getState(mm, md, st, spec)
                mujoco.mj_setState(mm, snap, st, spec)
                mujoco.mj_forward(mm, snap)
                out.append(snap)
                last = t
                if len(out) >= n:
                    break
    return out


def _contact_groups(geom, dist):
    """{(g1, g2): sorted dists} of a contact list."""
    g = collections.defaultdict(list)
    for (a, b), x in zip(np.asarray(geom).reshape(-1, 2), np.asarray(dist).reshape(-1)):
        g[(int(a), int(b))].append(float(x))
    return {k: sorted(v) for k, v in g.items()}


def compare_state(sim, m, md, mm):
    """Our forward at MuJoCo's state md: (dist_err, qacc_err, qfrc_err, contact difference or None, ncon)."""
    d = sim.Data(m)
    _copy_state(md, d)
    sim.forward(m, d)
    ncon = int(md.ncon)
    ours = _contact_groups(d.contact.geom, d.contact.dist)
    theirs = _contact_groups(md.contact.geom[:ncon], md.contact.dist[:ncon])
    diff = None
    dist_err = 0.0
    if d.ncon != ncon or {k: len(v) for k, v in ours.items()} != {k: len(v) for k, v in theirs.items()}:
        only_o = sorted(set(ours) - set(theirs))[:3]
        only_t = sorted(set(theirs) - set(ours))[:3]
        counts = [
            (k, len(ours[k]), len(theirs[k])) for k in sorted(set(ours) & set(theirs)) if len(ours[k]) != len(theirs[k])
        ][:3]
        diff = (
            f"ncon ours={d.ncon} mujoco={ncon}; pairs only ours={only_o} only mujoco={only_t}; "
            f"(pair, ours, mujoco) counts={counts}"
        )
    for k in set(ours) & set(theirs):
        if len(ours[k]) == len(theirs[k]):
            dist_err = max(dist_err, float(np.max(np.abs(np.subtract(ours[k], theirs[k])))))
    return (dist_err, rel_err(d.qacc, md.qacc), rel_err(d.qfrc_constraint, md.qfrc_constraint), diff, ncon)


def trajectory(sim, mujoco, m, mm, nstep=N_TRAJ, seed=SEED + 1):
    """Contact-free rollout on both: a dict with steps (compared), err (worst relative qpos / qvel error),
    first_bad (first step above TRAJ_RTOL or None), exc (exception text or None), profile ({step: error} at
    PROFILE_STEPS: an error that grows steadily from rounding is chaos amplifying ulps, a jump is a discrete
    difference) and local_err (the worst error of a numjoco step taken from MuJoCo's state against MuJoCo's
    step)."""
    bit = int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    old_mm, old_m = mm.opt.disableflags, m.opt.disableflags
    mm.opt.disableflags = old_mm | bit
    m.opt.disableflags = old_m | bit
    out = {"steps": 0, "err": 0.0, "first_bad": None, "exc": None, "profile": {}, "local_err": 0.0}
    try:
        md = mujoco.MjData(mm)
        _mj_reset(mujoco, mm, md)
        d = sim.Data(m)
        sim.reset(m, d, keyframe=0 if mm.nkey > 0 else None)
        dl = sim.Data(m)
        rng = np.random.default_rng(seed)
        for t in range(nstep):
            u = _random_ctrl(mm, rng)
            md.ctrl[:] = u
            if mm.nu:
                d.ctrl = u
            _copy_state(md, dl)
            try:
                sim.step(m, d)
                sim.step(m, dl)
            except Exception as e:  # a failing step is a record, not a harness crash
                out["exc"] = _err(e)
                return out
            mujoco.mj_step(mm, md)
            out["steps"] = t + 1
            e = max(rel_err(d.qpos, md.qpos), rel_err(d.qvel, md.qvel))
            out["local_err"] = max(out["local_err"], rel_err(dl.qpos, md.qpos), rel_err(dl.qvel, md.qvel))
            out["err"] = max(out["err"], e)
            if e > TRAJ_RTOL and out["first_bad"] is None:
                out["first_bad"] = t + 1
            if t + 1 in PROFILE_STEPS:
                out["profile"][t + 1] = e
            if not np.isfinite(e):
                return out
        return out
    finally:
        mm.opt.disableflags = old_mm
        m.opt.disableflags = old_m


def _fields(oracle, ours, theirs):
    mism = oracle.compare_models(ours, theirs, rtol=FIELD_TOL, atol=FIELD_TOL, skip=oracle.HULL_ORDER_FIELDS)
    for i in range(theirs.nmesh):
        try:
            mism += ["mesh_hull: " + x for x in oracle.hull_mismatches(ours, theirs, i)]
        except Exception as e:  # a hull we cannot read is a mismatch
            mism.append(f"mesh_hull: mesh {i}: {_err(e)}")
    return mism


def check(entry, dynamics=True):
    """The record of one corpus entry (tests/corpus.py Entry); see the module docstring."""
    import mujoco
    import oracle
    import sim

    t0 = time.perf_counter()
    rec = {
        "name": entry.name,
        "package": entry.package,
        "kind": entry.kind,
        "source": entry.source,
        "mj_load": None,
        "ours_load": None,
        "load": None,
        "sizes": None,
        "fields": None,
        "fields_detail": [],
        "step": None,
        "nstates": None,
        "ncon": None,
        "contact_mismatch": None,
        "contact_detail": [],
        "dist_err": None,
        "qacc_err": None,
        "qfrc_err": None,
        "traj_steps": None,
        "traj_err": None,
        "traj_first_bad": None,
        "traj_local_err": None,
        "chaotic": None,
        "status": None,
        "reasons": [],
        "seconds": None,
    }
    try:
        _check(entry, rec, mujoco, oracle, sim, dynamics)
    except Exception as e:  # the harness never hides a crash: it is the record's reason
        rec["reasons"].append("harness: " + _err(e))
        rec["traceback"] = traceback.format_exc(limit=6)
    rec["status"] = _status(rec)
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def _mj_load_seconds(entry):
    """Seconds mujoco.MjModel.from_xml_path takes on the entry (for the slow-load message)."""
    import mujoco

    t = time.perf_counter()
    try:
        mujoco.MjModel.from_xml_path(entry.resolve())
    except Exception:
        pass
    return time.perf_counter() - t


_STAGE = [None]  # worker mode: a callable told each stage's name (check_isolated reports where a model hung)


def _stage(name):
    if _STAGE[0] is not None:
        _STAGE[0](name)


def _check(entry, rec, mujoco, oracle, sim, dynamics):
    _stage("build / mujoco load")
    try:
        path = entry.resolve()
    except Exception as e:
        rec["reasons"].append("build: " + _err(e))
        return
    try:
        mm = mujoco.MjModel.from_xml_path(path)
        rec["mj_load"] = "ok"
    except Exception as e:
        mm = None
        rec["mj_load"] = _err(e)
    _stage("numjoco load (compile the model)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = sim.load_model(path)
        rec["ours_load"] = "ok"
    except Exception as e:
        m = None
        rec["ours_load"] = _err(e)
        ours_exc = e
    if mm is None:
        if m is not None:
            rec["load"] = "ours accepts"
            rec["reasons"].append("MuJoCo refuses, numjoco loads")
        elif isinstance(ours_exc, sim.UnsupportedError) or not isinstance(ours_exc, sim.ModelError):
            rec["load"] = "wrong error"
            rec["reasons"].append(f"MuJoCo refuses, numjoco raises {type(ours_exc).__name__} (not ModelError)")
        else:
            rec["load"] = "both refuse"
        return
    rec["sizes"] = {k: int(getattr(mm, k)) for k in ("nq", "nv", "nu", "ngeom", "nbody", "nmesh")}
    if m is None:
        rec["load"] = "ours refuses"
        rec["reasons"].append("load: " + rec["ours_load"])
        return
    rec["load"] = "both"
    _stage("model fields")
    mism = _fields(oracle, m, mm)
    rec["fields"] = len(mism)
    rec["fields_detail"] = [x[:300] for x in mism[:DETAIL]]
    if mism:
        names = sorted(set(oracle.mismatch_fields(mism)))
        rec["reasons"].append(f"fields: {len(mism)} differ ({', '.join(names[:6])}{'...' if len(names) > 6 else ''})")
    if not dynamics:
        return
    if mm.nv == 0:
        rec["step"] = "static"
        return
    _stage("first step (numba compile of a new feature set)")
    try:
        d = sim.Data(m)
        sim.step(m, d)
        rec["step"] = "ok"
    except Exception as e:
        rec["step"] = _err(e)
        rec["reasons"].append("step: " + rec["step"])
        return
    # contact states
    _stage("contact states")
    states = contact_states(mujoco, mm)
    rec["nstates"] = len(states)
    rec["ncon"] = int(sum(s.ncon for s in states))
    bad, derr, aerr, ferr = 0, 0.0, 0.0, 0.0
    for k, md in enumerate(states):
        try:
            de, ae, fe, diff, _ = compare_state(sim, m, md, mm)
        except Exception as e:
            rec["reasons"].append("forward: " + _err(e))
            break
        derr, aerr, ferr = max(derr, de), max(aerr, ae), max(ferr, fe)
        if diff is not None:
            bad += 1
            if len(rec["contact_detail"]) < DETAIL:
                rec["contact_detail"].append(f"state {k}: {diff}")
    rec["contact_mismatch"] = bad
    if states:
        rec["dist_err"], rec["qacc_err"], rec["qfrc_err"] = derr, aerr, ferr
    if bad:
        rec["reasons"].append(f"contacts: {bad} of {len(states)} states have another contact set")
    if derr > DIST_TOL:
        rec["reasons"].append(f"dist err {derr:.2g}")
    if aerr > ACC_RTOL or ferr > ACC_RTOL:
        rec["reasons"].append(f"qacc err {aerr:.2g}, qfrc_constraint err {ferr:.2g}")
    # contact-free trajectory
    _stage("contact-free trajectory")
    tr = trajectory(sim, mujoco, m, mm)
    rec["traj_steps"], rec["traj_err"], rec["traj_first_bad"] = tr["steps"], tr["err"], tr["first_bad"]
    rec["traj_profile"] = {str(k): v for k, v in tr["profile"].items()}
    rec["traj_local_err"] = tr["local_err"]
    if tr["exc"]:
        rec["reasons"].append(f"trajectory step {tr['steps']}: {tr['exc']}")
    elif tr["err"] > TRAJ_RTOL:
        what = f"trajectory err {tr['err']:.2g} (first above {TRAJ_RTOL:g} at step {tr['first_bad']})"
        if tr["local_err"] <= LOCAL_RTOL and tr["steps"] == N_TRAJ:
            rec["chaotic"] = f"{what}; every step from MuJoCo's state within {tr['local_err']:.2g} of MuJoCo's"
        else:
            rec["reasons"].append(f"{what}; one-step err {tr['local_err']:.2g}")


def _status(rec):
    if rec["reasons"]:
        return "fail"
    if rec["load"] == "both refuse":
        return "refused (both)"
    if rec["step"] == "static":
        return "static"
    if rec.get("chaotic"):
        return "chaotic"
    if rec["load"] == "both" and rec["step"] is None:
        return "fields match"
    return "match"


# ------------------------------------------------------------------------------------ process isolation


def _worker():
    """Read entry names on stdin; write JSON lines on stdout: {"stage": name} as each stage starts, then the record
    (the protocol of check_isolated)."""
    import corpus

    entries = corpus.by_name()
    out = sys.stdout
    sys.stdout = sys.stderr  # anything the packages print goes to stderr

    def tell(name):
        out.write(json.dumps({"stage": name}) + "\n")
        out.flush()

    _STAGE[0] = tell
    for line in sys.stdin:
        name, _, mode = line.strip().partition("\t")
        if not name:
            continue
        rec = check(entries[name], dynamics=mode != "fields")
        out.write(json.dumps(rec) + "\n")
        out.flush()


WORKER_ARGV = None  # the worker command (None: this file with --worker); tests substitute a scripted worker


def check_isolated(entries, timeout=900, log=None, jobs=1, load_timeout=LOAD_TIMEOUT, dynamics=True):
    """Records of entries (in the order they finish), each checked in one of `jobs` worker processes: a model
    that kills the interpreter (a segfault in compiled code), runs longer than `timeout` s, or whose numjoco load
    alone runs longer than `load_timeout` s is a 'fail' record naming the stage it was in (the worker is then
    replaced), not a lost run."""
    import select

    pending = list(entries)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, HERE, os.environ.get("PYTHONPATH", "")]))
    busy = {}  # proc -> [entry, start time, stage, stage start time]
    unread = {}  # proc -> bytes after its last complete line
    idle = []

    def failed(e, t0, what):
        return {
            "name": e.name,
            "package": e.package,
            "kind": e.kind,
            "source": e.source,
            "status": "fail",
            "reasons": [what],
            "seconds": round(time.perf_counter() - t0, 2),
        }

    while pending or busy:
        while pending and len(busy) < jobs:
            proc = (
                idle.pop()
                if idle
                else subprocess.Popen(
                    WORKER_ARGV or [sys.executable, os.path.abspath(__file__), "--worker"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log or subprocess.DEVNULL,
                    env=env,
                    bufsize=0,
                    cwd=REPO,
                )
            )
            e = pending.pop(0)
            proc.stdin.write((e.name + ("\n" if dynamics else "\tfields\n")).encode())
            busy[proc] = [e, time.perf_counter(), "start (imports)", time.perf_counter()]
            unread[proc] = b""
        # the pipes are read unbuffered (os.read), lines split here: a buffered readline would leave a second
        # line (a quick model's record right after its stage line) in its buffer, where select never sees it
        ready, _, _ = select.select([p.stdout for p in busy], [], [], 5.0)
        for proc in [p for p in busy if p.stdout in ready]:
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:  # died
                e, t0, st, _ = busy.pop(proc)
                proc.wait()
                yield failed(e, t0, f"worker process died (exit code {proc.returncode}) in stage '{st}'")
                continue
            unread[proc] += chunk
            *lines, unread[proc] = unread[proc].split(b"\n")
            for line in lines:
                msg = json.loads(line)
                if "stage" in msg:
                    busy[proc][2:] = [msg["stage"], time.perf_counter()]
                    continue
                del busy[proc]
                idle.append(proc)
                yield msg
        now = time.perf_counter()
        for proc in [
            p
            for p, (e, t0, st, ts) in busy.items()
            if now - t0 > timeout or (st.startswith("numjoco load") and now - ts > load_timeout)
        ]:
            e, t0, st, ts = busy.pop(proc)
            proc.kill()
            proc.wait()
            if st.startswith("numjoco load") and now - ts > load_timeout:
                yield failed(
                    e,
                    t0,
                    f"slow load: sim.load_model still running after {load_timeout:g} s "
                    f"(MuJoCo: {_mj_load_seconds(e):.2f} s)",
                )
            else:
                yield failed(e, t0, f"hung: no record after {timeout:g} s, in stage '{st}'")
    for proc in idle:
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        _worker()
    else:
        import corpus

        ents = corpus.by_name(sys.argv[1:] or None)
        for name, ent in ents.items():
            print(json.dumps(check(ent), indent=1))
