"""<actuator>: the general actuator and its shortcuts (motor, position, velocity, intvelocity, damper,
cylinder, muscle, adhesion, dcmotor), transmissions, ranges and the static part of the length-range rules.

How MuJoCo builds an actuator, reproduced here: every default class owns ONE general actuator; each shortcut
element written inside the class (e.g. <default><position kp="5"/>) reads the general attributes it carries
and then applies its own translation into gainprm/biasprm/dynprm/types, mutating that actuator.  A child
class starts from its parent's actuator.  An actuator element starts from its class's actuator and applies
the same reading + translation.  `reader.DefaultClass.actuator` lists the shortcut elements of the class
chain (parents first), so replaying that list then the element gives MuJoCo's result.

DC motors (<dcmotor>, or <general> with dyntype, gaintype and biastype dcmotor and actearly): mjs_setToDCMotor's
translation into gainprm / dynprm / biasprm, actdim (up to five states), forcerange, actuator_ctrlspec, and
mjCActuator::Compile's checks; numjoco simulates those with one control (input voltage, pos, vel or ff).

Not simulated (UnsupportedError at load time): orientation (so3), pid, actuator plugins, dyntype/gaintype/biastype
pid/so3, DC motors with several controls or none (input="pos vel", input="none", ...) and with only some of their
types dcmotor, `input` on other than fixed/affine/dcmotor gains. User dynamics, gain and bias
run as MuJoCo runs them with no callbacks installed (act_dot 0, gain 1, bias 0; sim/engine/actuation.py); more than
one activation per actuator (actdim > 1, user dynamics only) is refused at load (sim/io.py).  Control delays (nsample /
delay / interp) fill actuator_history / actuator_historyadr / nhistory as MuJoCo does.  `input` on a fixed/affine general actuator (one of pos, vel, pressure) only sets actuator_ctrlspec.

Left to the setconst stage (needs dynamics at qpos0): actuator_length0, actuator_acc0, the dampratio ->
damping conversion of position-like actuators (biasprm[2] > 0 is a damping ratio until then, as in MuJoCo),
and the simulation-based lengthrange (see `compile_actuators`; sim/setconst.py `_length_range`).
"""

import numpy as np

from .context import farr, iarr, store_columns
from .tendon import LIMITED_AUTO, LIMITED_TRUE, check_autolimits, is_limited, rows2, user_rows
from sim.constants import JNT_HINGE, JNT_SLIDE

# mjtTrn
TRN_JOINT, TRN_JOINTINPARENT, TRN_SLIDERCRANK, TRN_TENDON, TRN_SITE, TRN_BODY = 0, 1, 2, 3, 4, 5
TRN_UNDEFINED = 1000
# mjtDyn / mjtGain / mjtBias
DYN_NONE, DYN_INTEGRATOR, DYN_FILTER, DYN_FILTEREXACT, DYN_MUSCLE, DYN_DCMOTOR, DYN_PID, DYN_USER = range(8)
GAIN_FIXED, GAIN_AFFINE, GAIN_MUSCLE, GAIN_DCMOTOR, GAIN_SO3, GAIN_PID, GAIN_USER = range(7)
BIAS_NONE, BIAS_AFFINE, BIAS_MUSCLE, BIAS_DCMOTOR, BIAS_SO3, BIAS_USER = range(6)
# mjtLRMode
LRMODE_NONE, LRMODE_MUSCLE, LRMODE_MUSCLEUSER, LRMODE_ALL = 0, 1, 2, 3

NDYN = NGAIN = NBIAS = 10

# transmission attribute -> (trntype, object type of the target)
_TARGETS = (
    ("joint", TRN_JOINT, "joint"),
    ("jointinparent", TRN_JOINTINPARENT, "joint"),
    ("tendon", TRN_TENDON, "tendon"),
    ("cranksite", TRN_SLIDERCRANK, "site"),
    ("site", TRN_SITE, "site"),
    ("body", TRN_BODY, "body"),
)

_UNSUPPORTED_TAGS = {
    "orientation": "the <orientation> (so3) actuator",
    "pid": "the <pid> actuator",
    "plugin": "actuator plugins",
}


def default_actuator():
    """MuJoCo's mjs_defaultActuator as a dict."""
    gainprm = np.zeros(NGAIN)
    gainprm[0] = 1
    dynprm = np.zeros(NDYN)
    dynprm[0] = 1
    gear = np.zeros(6)
    gear[0] = 1
    return {
        "gaintype": GAIN_FIXED,
        "gainprm": gainprm,
        "biastype": BIAS_NONE,
        "biasprm": np.zeros(NBIAS),
        "dyntype": DYN_NONE,
        "dynprm": dynprm,
        "actdim": -1,
        "ctrlspec": 0,
        "velrange": np.zeros(2),
        "ffrange": np.zeros(2),
        "gear": gear,
        "ctrllimited": LIMITED_AUTO,
        "forcelimited": LIMITED_AUTO,
        "actlimited": LIMITED_AUTO,
        "ctrlrange": np.zeros(2),
        "forcerange": np.zeros(2),
        "actrange": np.zeros(2),
        "lengthrange": np.zeros(2),
        "group": 0,
        "actearly": 0,
        "damping": np.zeros(3),
        "armature": 0.0,
        "cranklength": 0.0,
        "inheritrange": 0.0,
        "user": np.zeros(0),
        "nsample": 0,
        "interp": 0,
        "delay": 0.0,
        "trntype": TRN_UNDEFINED,
        "target": None,
        "target_attr": None,
        "slidersite": None,
        "refsite": None,
        "input": None,
        # servo input signature MuJoCo 3.17 records per shortcut (mjtCtrlInput bits), kept for fixed gains
        "ctrlspec_hint": 0,
        # which element last defined the parameters: "general" or a shortcut tag (see _translate)
        "kind": "general",
    }


def _copy(a):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in a.items()}


# attributes read the same way by every actuator element (MuJoCo's general attribute table)
_SCALARS = (
    "group",
    "nsample",
    "interp",
    "delay",
    "ctrllimited",
    "forcelimited",
    "actlimited",
    "armature",
    "actdim",
    "dyntype",
    "gaintype",
    "biastype",
    "actearly",
)
_FIXED = ("ctrlrange", "forcerange", "actrange", "lengthrange", "velrange", "ffrange")
_PREFIX = ("gear", "damping", "dynprm", "gainprm", "biasprm")


def apply_element(a, el, vals, in_default, check_only=False):
    """Mutate actuator dict `a` with element `el` (own typed values `vals`), as MuJoCo's OneActuator.
    check_only: the element is read for MuJoCo's parse-time checks only (a default class no actuator may use),
    so a shortcut numjoco does not simulate is checked and skipped instead of refused."""
    tag = el.tag
    if tag in _UNSUPPORTED_TAGS:
        _check_unsupported_shortcut(el, vals)
        if check_only:
            return
        raise el.error(f"{_UNSUPPORTED_TAGS[tag]} is not supported by numjoco yet", cls=_unsupported_cls())
    for k in _SCALARS:
        if k in vals:
            a[k] = vals[k]
    for k in _FIXED:
        if k in vals:
            a[k] = np.array(vals[k], dtype=np.float64)
    for k in _PREFIX:
        if k in vals:
            v = np.asarray(vals[k], dtype=np.float64)
            a[k][: len(v)] = v
    if "user" in vals:
        a["user"] = np.array(vals["user"], dtype=np.float64)

    # transmission target (never in defaults: those attributes are nodefault); OneActuator reads joint,
    # jointinparent, tendon, cranksite, site, body in this order, each one given replacing the one before
    found = [(attr, trn, ot) for attr, trn, ot in _TARGETS if attr in vals]
    if found:
        attr, trn, _ = found[-1]
        a["trntype"], a["target"], a["target_attr"] = trn, vals[attr], attr
    has_crank = "cranklength" in vals
    if has_crank:
        a["cranklength"] = vals["cranklength"]
    if "slidersite" in vals:
        a["slidersite"] = vals["slidersite"]
    if (has_crank or "slidersite" in vals) and a["trntype"] not in (TRN_SLIDERCRANK, TRN_UNDEFINED):
        raise el.error(
            "cranklength and slidersite can only be used with a slider-crank transmission (cranksite)",
            "cranklength" if has_crank else "slidersite",
        )
    if "refsite" in vals:
        a["refsite"] = vals["refsite"]
        if a["trntype"] not in (TRN_SITE, TRN_UNDEFINED):
            raise el.error("refsite can only be used with a site transmission", "refsite")
    if "input" in vals and vals["input"].strip():  # an empty input reads as no input (ReadAttrTxt finds no token)
        a["input"] = _parse_input(el, vals["input"])
    if tag == "general" and "inheritrange" in vals:  # read by the general attribute table (3.17)
        a["inheritrange"] = vals["inheritrange"]

    _translate(a, el, vals)
    if in_default and el.tag != "general":
        _remember(a, el.tag)


# the `input` attribute (MuJoCo 3.17): so3 chart keywords or servo input tokens in canonical order
_CHARTS = {"expmap": 1, "quat": 2}
_INPUT_BITS = {"pos": 1, "vel": 2, "ff": 4, "voltage": 8, "pressure": 32}


def _parse_input(el, text):
    words = text.split()
    if len(words) == 1 and words[0] in _CHARTS:
        return _CHARTS[words[0]]
    if words == ["none"]:
        return 16
    bits = []
    for w in words:
        if w not in _INPUT_BITS:
            raise el.error(f"invalid input keyword '{w}', expected some of: {', '.join(_INPUT_BITS)}", "input")
        bits.append(_INPUT_BITS[w])
    if not bits or any(b <= a for a, b in zip(bits, bits[1:])):
        raise el.error("inputs must be listed in canonical order [pos, vel, ff, voltage, pressure]", "input")
    return sum(bits)


def _check_unsupported_shortcut(el, vals):
    """The parse-time checks of the shortcuts numjoco does not simulate (mjs_setToOrientation, mjs_setToPID of
    MuJoCo's user_api.cc), so that an invalid one is refused as MuJoCo refuses it."""
    tag = el.tag
    if tag in ("orientation", "pid"):
        if "kv" in vals and "dampratio" in vals:
            raise el.error("kv and dampratio cannot both be defined", "dampratio")
        _need_nonneg(el, vals, "kv")
        _need_nonneg(el, vals, "dampratio")
    if tag == "pid":
        _need_nonneg(el, vals, "slewmax")
        if vals.get("inheritrange", 0) > 0 and "posrange" in vals and np.any(vals["posrange"] != 0):
            raise el.error("posrange and inheritrange cannot both be defined", "inheritrange")


def check_default_classes(ctx):
    """Read every default class's actuator elements once, as MuJoCo does while parsing <default> (its checks
    refuse an invalid class even when no actuator uses it)."""
    for cls in ctx.doc.classes.values():
        a = default_actuator()
        for del_, dvals in cls.actuator:
            apply_element(a, del_, dvals, True, check_only=True)


def _unsupported_cls():
    from sim.errors import UnsupportedError

    return UnsupportedError


def _need_nonneg(el, vals, name, what=None):
    if name in vals and vals[name] < 0:
        raise el.error(f"{what or name} cannot be negative", name)


# mjtCtrlInput of each shortcut: position -> pos, velocity / intvelocity -> vel, cylinder -> pressure
_CTRLSPEC = {"position": 1, "velocity": 2, "intvelocity": 2, "cylinder": 32}


# gain type each shortcut produces: a default-class actuator last written by <general> passes its parameters
# on to a shortcut only when its gaintype is this one
_PRODUCED_GAIN = {
    "position": GAIN_FIXED,
    "intvelocity": GAIN_FIXED,
    "velocity": GAIN_FIXED,
    "cylinder": GAIN_FIXED,
    "adhesion": GAIN_FIXED,
    "damper": GAIN_AFFINE,
    "muscle": GAIN_MUSCLE,
    "motor": GAIN_FIXED,
    "dcmotor": GAIN_DCMOTOR,
}


def _translate(a, el, vals):
    """The shortcut's own attributes -> general actuator parameters.

    MuJoCo 3.17 semantics (measured against the installed mujoco, it differs from the older mjs_setTo*):
    a shortcut rebuilds gainprm/biasprm/dynprm/dyntype from the clean defaults; the values it can inherit
    (kp, kv, timeconst, area, bias, muscle parameters, ...) come from the previous actuator of the default
    class only when that one was made by the same shortcut, or by <general> with the gain type this
    shortcut produces.  Everything else (ranges, gear, limits, group, ...) is kept.
    """
    tag = el.tag
    if tag == "general":
        a["kind"] = "general"
        return
    compatible = a["kind"] == tag or (a["kind"] == "general" and a["gaintype"] == _PRODUCED_GAIN[tag])
    clean = default_actuator()
    # a default class chain remembers the parameters each shortcut kind last produced: a <position> after
    # a <motor> in a child class still inherits the parent class's <position kp> (measured on 3.17)
    mem = a.setdefault("memory", {})
    old = a if compatible else mem.get(tag, clean)
    ogp, obp, odp, odyn = old["gainprm"].copy(), old["biasprm"].copy(), old["dynprm"].copy(), old["dyntype"]
    a["gainprm"], a["biasprm"], a["dynprm"] = clean["gainprm"], clean["biasprm"], clean["dynprm"]
    a["dyntype"] = DYN_NONE
    gp, bp, dp = a["gainprm"], a["biasprm"], a["dynprm"]
    a["kind"] = tag
    a["ctrlspec_hint"] = _CTRLSPEC.get(tag, 0)
    a["input"] = None

    if tag == "motor":
        gp[0] = 1
        a["gaintype"], a["biastype"] = GAIN_FIXED, BIAS_NONE
    elif tag in ("position", "intvelocity"):
        kp = vals.get("kp", ogp[0])
        gp[0] = kp
        bp[1] = -kp
        bp[2] = obp[2]
        if odyn == DYN_FILTEREXACT:
            dp[0] = odp[0]
            a["dyntype"] = DYN_FILTEREXACT
        if "kv" in vals and "dampratio" in vals:
            raise el.error("kv and dampratio cannot both be defined", "dampratio")
        if "kv" in vals:
            _need_nonneg(el, vals, "kv")
            bp[2] = -vals["kv"]
        if "dampratio" in vals:
            _need_nonneg(el, vals, "dampratio")
            bp[2] = vals["dampratio"]
        if "timeconst" in vals:
            _need_nonneg(el, vals, "timeconst")
            dp[0] = vals["timeconst"]
            a["dyntype"] = DYN_NONE if vals["timeconst"] == 0 else DYN_FILTEREXACT
        a["inheritrange"] = vals.get("inheritrange", a["inheritrange"])
        if a["inheritrange"] > 0 and (a["ctrlrange"][0] or a["ctrlrange"][1]):
            raise el.error("ctrlrange and inheritrange cannot both be defined", "inheritrange")
        a["gaintype"], a["biastype"] = GAIN_FIXED, BIAS_AFFINE
        if tag == "intvelocity":
            a["dyntype"] = DYN_INTEGRATOR
            if a["inheritrange"] > 0 and (a["actrange"][0] or a["actrange"][1]):
                raise el.error("actrange and inheritrange cannot both be defined", "inheritrange")
    elif tag == "velocity":
        kv = vals.get("kv", ogp[0])
        gp[0] = kv
        bp[2] = -kv
        a["gaintype"], a["biastype"] = GAIN_FIXED, BIAS_AFFINE
    elif tag == "damper":
        kv = vals.get("kv", -ogp[2] if compatible else 0.0)
        gp[:] = 0
        gp[2] = -kv
        a["ctrllimited"] = LIMITED_TRUE
        a["gaintype"], a["biastype"] = GAIN_AFFINE, BIAS_NONE
        if kv < 0:
            raise el.error("damping coefficient cannot be negative", "kv")
        if a["ctrlrange"][0] < 0 or a["ctrlrange"][1] < 0:
            raise el.error("damper control range cannot be negative", "ctrlrange")
    elif tag == "cylinder":
        dp[0] = vals.get("timeconst", odp[0])
        bias = np.array(vals["bias"]) if "bias" in vals else obp[:3]
        gp[0] = vals.get("area", ogp[0])
        if "diameter" in vals and vals["diameter"] >= 0:
            gp[0] = np.pi / 4 * vals["diameter"] * vals["diameter"]
        bp[0:3] = bias
        a["dyntype"], a["gaintype"], a["biastype"] = DYN_FILTER, GAIN_FIXED, BIAS_AFFINE
    elif tag == "muscle":
        gp[:] = ogp
        dp[:] = odp
        tausmooth = vals.get("tausmooth", dp[2])
        # MuJoCo's muscle defaults replace the global general-actuator defaults only
        for i, (glob, mus) in enumerate(
            ((1, 0.75), (0, 1.05), (0, -1), (0, 200), (0, 0.5), (0, 1.6), (0, 1.5), (0, 1.3), (0, 1.2))
        ):
            if gp[i] == glob:
                gp[i] = mus
        if dp[0] == 1:
            dp[0] = 0.01
        if dp[1] == 0:
            dp[1] = 0.04
        if tausmooth < 0:
            raise el.error("muscle tausmooth cannot be negative", "tausmooth")
        dp[2] = tausmooth
        tc = vals.get("timeconst", np.array([-1.0, -1.0]))
        for i in range(2):
            if tc[i] >= 0:
                dp[i] = tc[i]
        rng = vals.get("range", np.array([-1.0, -1.0]))
        for i in range(2):
            if rng[i] >= 0:
                gp[i] = rng[i]
        for i, name in enumerate(("force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax")):
            v = vals.get(name, -1.0)
            if v >= 0:
                gp[2 + i] = v
        bp[:9] = gp[:9]
        a["dyntype"], a["gaintype"], a["biastype"] = DYN_MUSCLE, GAIN_MUSCLE, BIAS_MUSCLE
    elif tag == "dcmotor":
        inherited = compatible or tag in mem
        _dcmotor(a, el, vals, inherited, ogp, obp, odp, old.get("dc_ctrlspec", 0))
    elif tag == "adhesion":
        gain = vals.get("gain", ogp[0])
        gp[0] = gain
        a["ctrllimited"] = LIMITED_TRUE
        a["gaintype"], a["biastype"] = GAIN_FIXED, BIAS_NONE
        if gain < 0:
            raise el.error("adhesion gain cannot be negative", "gain")
        if a["ctrlrange"][0] < 0 or a["ctrlrange"][1] < 0:
            raise el.error("adhesion control range cannot be negative", "ctrlrange")


def _prefix(vals, name, init):
    """init (a list) with its leading entries replaced by the values given (ReadAttr with exact=false)."""
    out = list(init)
    if name in vals:
        v = np.atleast_1d(np.asarray(vals[name], dtype=np.float64))
        out[: len(v)] = v.tolist()
    return out


def _dcmotor(a, el, vals, inherited, ogp, obp, odp, ospec):
    """<dcmotor> -> dyn/gain/bias dcmotor, gainprm [R K alpha T0 kp ki kd vmax], dynprm [te didtmax RT C Ta sigma0
    sigma1 slewmax imax], biasprm [cog_amp cog_np cog_phase F_C F_S v_S], actdim, forcerange (mjs_setToDCMotor of
    user_api.cc with the inherited values of xml_native_reader.cc's OneActuator)."""
    h = 1.0 if inherited else 0.0
    motorconst = _prefix(vals, "motorconst", [h * ogp[1], 0.0])
    R = float(vals.get("resistance", h * ogp[0]))
    nominal = _prefix(vals, "nominal", [0.0, 0.0, 0.0])
    saturation = _prefix(vals, "saturation", [0.0, 0.0, h * odp[1]])
    controller = _prefix(vals, "controller", [h * ogp[4], h * ogp[5], h * ogp[6], h * odp[7], h * odp[8], h * ogp[7]])
    inductance = _prefix(vals, "inductance", [0.0, h * odp[0]])
    cogging = _prefix(vals, "cogging", [h * obp[0], h * obp[1], h * obp[2]])
    thermal = _prefix(vals, "thermal", [h * odp[2], h * odp[3], 0.0, h * ogp[2], h * ogp[3], h * odp[4]])
    lugre = _prefix(vals, "lugre", [h * odp[5], h * odp[6], h * obp[3], h * obp[4], h * obp[5]])
    given = "input" in vals and vals["input"].strip()
    spec = _parse_input(el, vals["input"]) if given else (ospec if inherited else 0)

    kt, ke = motorconst
    vn, tau0, omega0 = nominal
    if vn > 0 and ke <= 0 and omega0 > 0:  # Ke from the nominal point: omega0 = vn Ke / (Ke^2 + R B)
        b = a["damping"][0]
        if b > 0 and R > 0:
            disc = vn * vn - 4 * R * b * omega0 * omega0
            ke = (vn + np.sqrt(disc)) / (2 * omega0) if disc > 0 else vn / omega0
        elif b > 0 and tau0 > 0:
            exact = vn / omega0 - vn * b / tau0
            ke = exact if exact > 0 else vn / omega0
        else:
            ke = vn / omega0
    K = np.sqrt(kt * ke) if kt > 0 and ke > 0 else (kt if kt > 0 else ke)
    if R == 0 and vn > 0 and tau0 > 0 and K > 0:
        R = K * vn / tau0
    if K <= 0:
        raise el.error("DC motor: motor constant K must be positive", "motorconst")
    if R <= 0:
        raise el.error("DC motor: resistance R must be positive", "resistance")
    a["dyntype"], a["gaintype"], a["biastype"] = DYN_DCMOTOR, GAIN_DCMOTOR, BIAS_DCMOTOR
    gp, bp, dp = a["gainprm"], a["biasprm"], a["dynprm"]
    gp[0], gp[1] = R, K
    gp[4], gp[5], gp[6] = controller[0], controller[1], controller[2]
    dp[7], dp[8] = controller[3], controller[4]
    if controller[5] > 0:
        gp[7] = controller[5]
    if saturation[0] > 0 or saturation[1] > 0:
        tau_max = saturation[0]
        if tau_max == 0 and saturation[1] > 0:
            tau_max = K * saturation[1]
        a["forcerange"] = np.array([-tau_max, tau_max])
        a["forcelimited"] = LIMITED_TRUE
    if saturation[2] > 0:
        dp[1] = saturation[2]
    bp[0], bp[1], bp[2] = cogging
    actdim = 0
    if inductance[0] < 0:
        raise el.error("DC motor: inductance must be non-negative", "inductance")
    if inductance[1] < 0:
        raise el.error("DC motor: electrical time constant must be non-negative", "inductance")
    te = inductance[0] / R if inductance[0] > 0 else inductance[1]
    dp[0] = te
    actdim += int(te > 0) + int(controller[3] > 0) + int(controller[1] > 0)
    rt, cap, tth, alpha, t0, ta = thermal
    if rt > 0 or cap > 0 or tth > 0:
        if tth > 0 and rt > 0 and cap == 0:
            cap = tth / rt
        elif tth > 0 and cap > 0 and rt == 0:
            rt = tth / cap
        if rt <= 0:
            raise el.error("DC motor: thermal resistance must be positive", "thermal")
        if cap <= 0:
            raise el.error("DC motor: thermal capacitance must be positive", "thermal")
        dp[2], dp[3], dp[4], gp[2], gp[3] = rt, cap, ta, alpha, t0
        actdim += 1
    if lugre[0] > 0:
        dp[5], dp[6], bp[3], bp[4], bp[5] = lugre
        actdim += 1
    gp[8] = 0.0
    a["input"] = spec if spec else None
    a["dc_ctrlspec"] = spec
    a["actdim"] = int(actdim)
    a["actlimited"] = 0  # mjLIMITED_FALSE: one actrange cannot bound the motor's different states
    a["actearly"] = 1


def _remember(a, tag):
    """Snapshot of the parameters shortcut `tag` produced, for later shortcuts of the same kind."""
    a.setdefault("memory", {})[tag] = {
        "gainprm": a["gainprm"].copy(),
        "biasprm": a["biasprm"].copy(),
        "dynprm": a["dynprm"].copy(),
        "dyntype": a["dyntype"],
        "dc_ctrlspec": a.get("dc_ctrlspec", 0),
    }


def actuator_elements(ctx):
    out = []
    for sec in ctx.root.find("actuator"):
        out.extend(sec.children)
    return out


def build_actuator(ctx, el):
    """The actuator dict of element `el` after replaying its default class."""
    a = default_actuator()
    cls = ctx.doc.classes[el.dclass or "main"]
    for del_, dvals in cls.actuator:
        apply_element(a, del_, dvals, True)
    apply_element(a, el, el.values, False)
    return a


def compile_actuators(ctx):
    """Fill ctx.f with the actuator fields (nu, na, actuator_*), registers actuator names.

    Needs from the body stage: joint/site/body names, jnt_type, jnt_range, jnt_limited; from compile_tendon:
    tendon names, tendon_range, tendon_limited.

    Length range (compiler <lengthrange>): actuators selected by `mode` keep an explicit lengthrange when
    `useexisting`, copy a limited joint/tendon range when `uselimit`; the others need MuJoCo's simulation-based
    estimate, which the setconst stage computes (sim/setconst.py `_length_range`): their ids are stored in
    `ctx.lengthrange_sim`.
    """
    f = ctx.f
    elems = actuator_elements(ctx)
    acts = []
    for el in elems:
        ctx.add("actuator", el)
    check_default_classes(ctx)
    for el in elems:
        acts.append(build_actuator(ctx, el))
    user, nuser = user_rows_from(ctx, elems, acts)

    jnt_type = f.get("jnt_type", np.zeros(0, np.int32))
    jnt_range = f.get("jnt_range", np.zeros((0, 2)))
    jnt_limited = f.get("jnt_limited", np.zeros(0, np.int32))
    ten_range = f.get("tendon_range", np.zeros((0, 2)))
    ten_limited = f.get("tendon_limited", np.zeros(0, np.int32))

    out = {
        k: []
        for k in (
            "trntype",
            "dyntype",
            "gaintype",
            "biastype",
            "trnid",
            "actadr",
            "actnum",
            "group",
            "ctrllimited",
            "forcelimited",
            "actlimited",
            "ctrlrange",
            "forcerange",
            "actrange",
            "gear",
            "cranklength",
            "dynprm",
            "gainprm",
            "biasprm",
            "actearly",
            "lengthrange",
            "damping",
            "dampingpoly",
            "armature",
        )
    }
    adr = 0
    for i, (el, a) in enumerate(zip(elems, acts)):
        trnid = _resolve(ctx, el, a, i)
        _check(ctx, el, a, trnid, jnt_type, jnt_range, ten_range)
        out["trntype"].append(a["trntype"])
        out["dyntype"].append(a["dyntype"])
        out["gaintype"].append(a["gaintype"])
        out["biastype"].append(a["biastype"])
        out["trnid"].append(trnid)
        out["actnum"].append(a["actdim"])
        out["actadr"].append(adr if a["actdim"] else -1)
        adr += a["actdim"]
        out["group"].append(a["group"])
        out["ctrllimited"].append(int(is_limited(a["ctrllimited"], a["ctrlrange"])))
        out["forcelimited"].append(int(is_limited(a["forcelimited"], a["forcerange"])))
        out["actlimited"].append(int(is_limited(a["actlimited"], a["actrange"])))
        out["ctrlrange"].append(a["ctrlrange"])
        out["forcerange"].append(a["forcerange"])
        out["actrange"].append(a["actrange"])
        out["gear"].append(a["gear"])
        out["cranklength"].append(a["cranklength"])
        out["dynprm"].append(a["dynprm"])
        out["gainprm"].append(a["gainprm"])
        out["biasprm"].append(a["biasprm"])
        out["actearly"].append(int(a["actearly"]))
        out["lengthrange"].append(a["lengthrange"].copy())
        out["damping"].append(a["damping"][0])
        out["dampingpoly"].append(a["damping"][1:3])
        out["armature"].append(a["armature"])

    # static length range rules (MuJoCo's mj_setLengthRange before its simulation)
    lr = ctx.comp.first("lengthrange")
    mode = lr.get("mode") if lr is not None else LRMODE_MUSCLE
    useexisting = lr.get("useexisting") if lr is not None else 1
    uselimit = lr.get("uselimit") if lr is not None else 0
    ctx.lengthrange_sim = []
    for i, a in enumerate(acts):
        ismuscle = a["gaintype"] == GAIN_MUSCLE or a["biastype"] == BIAS_MUSCLE
        isuser = a["gaintype"] == GAIN_USER or a["biastype"] == BIAS_USER
        if (
            mode == LRMODE_NONE
            or (mode == LRMODE_MUSCLE and not ismuscle)
            or (mode == LRMODE_MUSCLEUSER and not ismuscle and not isuser)
        ):
            continue
        rng = out["lengthrange"][i]
        if useexisting and rng[0] < rng[1]:
            continue
        # MuJoCo (3.17, mj_setLengthRange) reads the target id as actuator_trnid[i] of the FLAT (nu x 2) array,
        # i.e. row i // 2, column i % 2: correct for actuator 0 only.  Reproduced to match the oracle; a -1 read
        # that way (MuJoCo then reads out of bounds) counts as "not limited".
        flat = [t for row in out["trnid"] for t in row]
        tid = flat[i]
        if uselimit and tid >= 0:
            if out["trntype"][i] in (TRN_JOINT, TRN_JOINTINPARENT) and tid < len(jnt_limited) and jnt_limited[tid]:
                out["lengthrange"][i] = np.array(jnt_range[tid], dtype=np.float64)
                continue
            if out["trntype"][i] == TRN_TENDON and tid < len(ten_limited) and ten_limited[tid]:
                out["lengthrange"][i] = np.array(ten_range[tid], dtype=np.float64)
                continue
        ctx.lengthrange_sim.append(i)

    n = len(elems)
    f["nu"] = n
    f["na"] = adr
    f["nout"] = n
    f["nuser_actuator"] = nuser
    store_columns(
        f,
        "actuator_",
        out,
        dict(
            trnid=2,
            ctrlrange=2,
            forcerange=2,
            actrange=2,
            gear=6,
            dynprm=NDYN,
            gainprm=NGAIN,
            biasprm=NBIAS,
            lengthrange=2,
            dampingpoly=2,
        ),
        ints=(
            "trntype",
            "dyntype",
            "gaintype",
            "biastype",
            "trnid",
            "actadr",
            "actnum",
            "group",
            "ctrllimited",
            "forcelimited",
            "actlimited",
            "actearly",
        ),
    )
    f["actuator_plugin"] = iarr([-1] * n)
    f["actuator_user"] = rows2(user, n, nuser)
    # every supported actuator has one control input and one force output
    f["actuator_ctrladr"] = iarr(list(range(n)))
    f["actuator_ctrlnum"] = iarr([1] * n)
    f["actuator_ctrlspec"] = iarr([_ctrlspec(a) for a in acts])
    f["actuator_outadr"] = iarr(list(range(n)))
    f["actuator_outnum"] = iarr([1] * n)
    # control history buffers (mjModel: 2 + 2 nsample values each, in actuator order, before the sensors')
    hadr = []
    nhist = 0
    for a in acts:
        hadr.append(nhist if a["nsample"] > 0 else -1)
        nhist += 2 + 2 * a["nsample"] if a["nsample"] > 0 else 0
    f["nhistory"] = nhist
    f["actuator_delay"] = farr([a["delay"] for a in acts])
    f["actuator_history"] = iarr([[a["nsample"], a["interp"]] for a in acts], 2)
    f["actuator_historyadr"] = iarr(hadr)


def _dcmotor_nslot(dp, gp):
    """Number of DC motor states, mj_dcmotorSlots: slew, integral, temperature, bristle, current."""
    return int(dp[7] > 0) + int(gp[5] > 0) + int(dp[2] > 0) + int(dp[5] > 0) + int(dp[0] > 0)


_INPUT_POS, _INPUT_VEL, _INPUT_FF, _INPUT_VOLTAGE, _INPUT_NONE = 1, 2, 4, 8, 16


def _check_dcmotor(el, a):
    """The DC motor input checks of mjCActuator::Compile (user_objects.cc); fills a["input"] (default voltage)."""
    spec = a["input"] or _INPUT_VOLTAGE
    a["input"] = spec
    servo = _INPUT_POS | _INPUT_VEL | _INPUT_FF
    if spec != _INPUT_NONE and spec & ~(servo | _INPUT_VOLTAGE):
        raise el.error("dcmotor inputs are 'none' or a subset of [pos, vel, ff, voltage]", "input")
    gp = a["gainprm"]
    controller = 0 if spec == _INPUT_NONE else spec & servo
    if controller and gp[1] <= 0:
        raise el.error("dcmotor controller inputs require a positive motor constant", "motorconst")
    if not controller and (gp[4] or gp[5] or gp[6]):
        raise el.error("dcmotor controller gains require a controller input [pos, vel, ff]", "controller")
    if gp[5] > 0 and not spec & _INPUT_POS:
        raise el.error("dcmotor integral gain requires the pos input", "controller")
    if not controller and a["dynprm"][7] > 0:
        raise el.error("dcmotor slew rate limiting requires a controller input [pos, vel, ff]", "controller")
    nctrl = sum(1 for b in (_INPUT_POS, _INPUT_VEL, _INPUT_FF, _INPUT_VOLTAGE) if spec & b)
    if nctrl != 1:
        raise el.error(
            "dcmotor with %d control inputs (input='%s') is not supported by numjoco yet: it simulates one control "
            "per actuator" % (nctrl, el.values.get("input", "")),
            "input",
            cls=_unsupported_cls(),
        )


def _ctrlspec(a):
    """actuator_ctrlspec (mjtCtrlInput): an explicit `input`, else the shortcut's input for fixed gains."""
    if a["gaintype"] == GAIN_DCMOTOR:
        return a["input"]
    if a["input"] is not None:
        return a["input"]
    return a["ctrlspec_hint"] if a["gaintype"] == GAIN_FIXED else 0


def user_rows_from(ctx, elems, acts):
    """user_rows over the actuator dicts (their user arrays may come from default classes)."""

    class _U:
        def __init__(self, el, user):
            self.el, self.user = el, user

        def get(self, name, default=None):
            return self.user

        def error(self, *args, **kw):
            return self.el.error(*args, **kw)

    return user_rows(ctx, [_U(el, a["user"]) for el, a in zip(elems, acts)], "actuator")


def _resolve(ctx, el, a, i):
    """[trnid0, trnid1] of the transmission, with MuJoCo's checks."""
    trn = a["trntype"]
    if trn == TRN_UNDEFINED or not a["target"]:
        # an empty name given (e.g. joint="") is the attribute at fault; with none given, the element is
        raise el.error(
            "missing transmission target: set one of joint, jointinparent, tendon, site, cranksite or body",
            a.get("target_attr") if trn != TRN_UNDEFINED else None,
        )
    attr = a["target_attr"]
    trnid1 = -1
    if trn in (TRN_JOINT, TRN_JOINTINPARENT):
        tid = ctx.lookup("joint", a["target"], el, attr)
    elif trn == TRN_SLIDERCRANK:
        if not a["slidersite"]:
            raise el.error("slider-crank transmission (cranksite) needs a slidersite", "slidersite")
        trnid1 = ctx.lookup("site", a["slidersite"], el, "slidersite")
        if a["cranklength"] <= 0:
            raise el.error("crank length must be positive for a slider-crank transmission", "cranklength")
        tid = ctx.lookup("site", a["target"], el, attr)
    elif trn == TRN_TENDON:
        tid = ctx.lookup("tendon", a["target"], el, attr)
    elif trn == TRN_SITE:
        if a["refsite"]:
            trnid1 = ctx.lookup("site", a["refsite"], el, "refsite")
        tid = ctx.lookup("site", a["target"], el, attr)
    else:
        tid = ctx.lookup("body", a["target"], el, attr)
    return [tid, trnid1]


def _check(ctx, el, a, trnid, jnt_type, jnt_range, ten_range):
    """MuJoCo's mjCActuator::Compile checks; fills actdim and inherited ranges in `a`."""
    uns = _unsupported_cls()
    gt, bt, dt = a["gaintype"], a["biastype"], a["dyntype"]
    if gt == GAIN_SO3 or bt == BIAS_SO3:
        raise el.error("so3 (orientation) actuators are not supported by numjoco yet", "gaintype", cls=uns)
    if gt == GAIN_PID or dt == DYN_PID:
        raise el.error("pid actuators are not supported by numjoco yet", "gaintype", cls=uns)
    if gt == GAIN_DCMOTOR:
        _check_dcmotor(el, a)
    elif a["input"] is not None:
        if gt not in (GAIN_FIXED, GAIN_AFFINE):
            raise el.error("the input attribute is only supported with fixed or affine gains", "input", cls=uns)
        if a["input"] not in (1, 2, 32):
            raise el.error("fixed and affine gains take one input: 'pos', 'vel' or 'pressure'", "input")
    trn = a["trntype"]
    if np.any(a["damping"] != 0) and trn not in (TRN_JOINT, TRN_JOINTINPARENT, TRN_TENDON):
        raise el.error("actuator damping requires a joint or tendon transmission", "damping")
    if a["armature"] != 0 and trn not in (TRN_JOINT, TRN_JOINTINPARENT, TRN_TENDON):
        raise el.error("actuator armature requires a joint or tendon transmission", "armature")

    # inheritrange: copy the target's range (scaled about its middle) into ctrlrange / actrange
    gp, bp = a["gainprm"], a["biasprm"]
    if gt == GAIN_FIXED and gp[0] == -bp[1] and bt == BIAS_AFFINE and a["inheritrange"] > 0:
        if dt in (DYN_NONE, DYN_FILTEREXACT):
            key = "ctrlrange"
        elif dt == DYN_INTEGRATOR:
            key = "actrange"
        else:
            raise el.error("inheritrange is only available for position and intvelocity actuators", "inheritrange")
        if trn == TRN_JOINT:
            if jnt_type[trnid[0]] not in (JNT_HINGE, JNT_SLIDE):
                raise el.error("inheritrange can only be used with hinge and slide joints", "inheritrange")
            target = jnt_range[trnid[0]]
        elif trn == TRN_TENDON:
            target = ten_range[trnid[0]]
        else:
            raise el.error("inheritrange can only be used with joint and tendon transmissions", "inheritrange")
        if target[0] == target[1]:
            raise el.error(f"inheritrange used but target '{a['target']}' has no range defined", "inheritrange")
        mean = 0.5 * (target[1] + target[0])
        radius = 0.5 * (target[1] - target[0]) * a["inheritrange"]
        a[key] = np.array([mean - radius, mean + radius])

    check_autolimits(ctx, el, a["forcelimited"], a["forcerange"], "force", "forcerange")
    check_autolimits(ctx, el, a["ctrllimited"], a["ctrlrange"], "ctrl", "ctrlrange")
    check_autolimits(ctx, el, a["actlimited"], a["actrange"], "act", "actrange")
    for k in ("force", "ctrl", "act"):
        if is_limited(a[k + "limited"], a[k + "range"]) and a[k + "range"][0] >= a[k + "range"][1]:
            raise el.error(f"invalid {k}range: lower bound must be smaller than upper bound", k + "range")
    if is_limited(a["actlimited"], a["actrange"]) and dt == DYN_NONE:
        raise el.error("actrange specified but dyntype is 'none'", "actrange")

    actdim = a["actdim"]
    if actdim > 1 and dt != DYN_USER and dt != DYN_DCMOTOR:
        raise el.error("actdim > 1 is only allowed for dyntype 'user' and 'dcmotor'", "actdim")
    if actdim == 1 and dt == DYN_NONE:
        raise el.error("invalid actdim 1 in a stateless actuator (dyntype 'none')", "actdim")
    if actdim == 0 and dt != DYN_NONE and dt != DYN_DCMOTOR:
        raise el.error("invalid actdim 0 in a stateful actuator", "actdim")
    if actdim < 0:
        a["actdim"] = int(dt != DYN_NONE and dt != DYN_DCMOTOR)
    if dt == DYN_DCMOTOR:
        if not a["actearly"]:
            raise el.error("actearly cannot be false for a DC motor actuator", "actearly")
        if gt != GAIN_DCMOTOR or bt != BIAS_DCMOTOR:
            raise el.error(
                "dyntype 'dcmotor' without gaintype and biastype 'dcmotor' is not supported by numjoco yet",
                "dyntype",
                cls=uns,
            )
        # mj_fwdActuation stops (mjERROR) when the state count disagrees with the parameters, in the compiler's
        # mj_setConst already: MuJoCo refuses the model
        if _dcmotor_nslot(a["dynprm"], gp) != a["actdim"]:
            raise el.error(
                "inconsistent state array dimension in DC motor: actdim must equal the number of states the "
                "parameters enable (slew, integral, temperature, bristle, current)",
                "actdim",
            )
    elif gt == GAIN_DCMOTOR or bt == BIAS_DCMOTOR:
        raise el.error(
            "gaintype or biastype 'dcmotor' without dyntype 'dcmotor' is not supported by numjoco yet",
            "gaintype",
            cls=uns,
        )

    for prm, on in ((gp, gt == GAIN_MUSCLE), (bp, bt == BIAS_MUSCLE)):
        if not on:
            continue
        if prm[0] >= prm[1]:
            raise el.error("muscle needs range[0] < range[1]", "range")
        if prm[4] >= 1 or prm[5] <= 1:
            raise el.error("muscle needs lmin < 1 < lmax", "lmin")
        if prm[3] <= 0 or prm[6] <= 0 or prm[7] <= 0 or prm[8] <= 0:
            raise el.error("muscle needs positive scale, vmax, fpmax and fvmax", "scale")

    if a["delay"] > 0 and a["nsample"] <= 0:
        raise el.error("delay > 0 needs a history buffer (nsample > 0)", "delay")
