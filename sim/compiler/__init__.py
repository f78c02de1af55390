"""MJCF compiler pipeline: Document -> Model (mjCModel::TryCompile in MuJoCo).

options -> assets -> kinematic tree -> tendons -> actuators -> sensors -> equality -> contact -> keyframes ->
derived constants (setconst).
"""

import numpy as np

from ..mjcf import schema
from ..model import Model, Option, Statistic
from .context import Context, merge_singletons

# section containers / elements numjoco parses but cannot simulate: fail loudly at load time
_UNSUPPORTED_TOP = {"extension": "<extension> (plugins)", "deformable": "<deformable> (flex and skin)"}


def _options(ctx):
    """<option> + <flag> -> Option (mjOption)."""
    opt_el = merge_singletons(ctx.root.find("option"), "option")
    flags = merge_singletons([f for o in ctx.root.find("option") for f in o.find("flag")], "flag")
    g = opt_el.get
    if g("actuatorgroupdisable") is not None and len(g("actuatorgroupdisable")):
        disable_act = 0
        for grp in g("actuatorgroupdisable"):
            if not 0 <= grp <= 30:
                raise opt_el.error("actuator group to disable must be in [0, 30]", "actuatorgroupdisable")
            disable_act |= 1 << int(grp)
    else:
        disable_act = 0
    disableflags = 0
    for bit, name in enumerate(schema.DISABLE_FLAGS):
        if flags.get(name) == 0:
            disableflags |= 1 << bit
    enableflags = 0
    for bit, name in enumerate(schema.ENABLE_FLAGS):
        if flags.get(name) == 1:
            enableflags |= 1 << bit
    if enableflags & (1 << schema.ENABLE_FLAGS.index("sleep")):
        raise ctx.unsupported(flags, "the sleep (island deactivation) flag", "sleep")
    for name in ("timestep",):
        if g(name) <= 0:
            raise opt_el.error("timestep must be positive", "timestep")
    return Option(
        timestep=g("timestep"), impratio=g("impratio"), tolerance=g("tolerance"), ls_tolerance=g("ls_tolerance"),
        noslip_tolerance=g("noslip_tolerance"), ccd_tolerance=g("ccd_tolerance"),
        sleep_tolerance=g("sleep_tolerance"), gravity=np.array(g("gravity"), dtype=np.float64),
        wind=np.array(g("wind"), dtype=np.float64), magnetic=np.array(g("magnetic"), dtype=np.float64),
        density=g("density"), viscosity=g("viscosity"), o_margin=g("o_margin"),
        o_solref=np.array(g("o_solref"), dtype=np.float64), o_solimp=np.array(g("o_solimp"), dtype=np.float64),
        o_friction=np.array(g("o_friction"), dtype=np.float64), integrator=g("integrator"), cone=g("cone"),
        jacobian=g("jacobian"), solver=g("solver"), iterations=g("iterations"), ls_iterations=g("ls_iterations"),
        noslip_iterations=g("noslip_iterations"), ccd_iterations=g("ccd_iterations"),
        sdf_iterations=g("sdf_iterations"), sdf_initpoints=g("sdf_initpoints"), disableflags=disableflags,
        enableflags=enableflags, disableactuator=disable_act)


def _sizes(ctx):
    size = merge_singletons(ctx.root.find("size"), "size")
    ctx.size = size
    f = ctx.f
    for k in ("nconmax", "njmax"):
        v = size.get(k)
        if v < -1:
            raise size.error(f"{k} must be >= -1", k)
        f[k] = v
    if size.get("nuserdata") < 0:
        raise size.error("nuserdata must be >= 0", "nuserdata")
    f["nuserdata"] = size.get("nuserdata")
    if size.has("memory"):
        # a byte count with an optional K/M/G/T/P/E suffix; numjoco preallocates per Data, so it is only checked
        import re
        if not re.fullmatch(r"\s*[0-9]+\s*[KMGTPE]?\s*", size.get("memory")):
            raise size.error("invalid memory size, expected a byte count with optional K/M/G/T/P/E suffix",
                             "memory")
    vis = ctx.root.find("visual")
    znear = 0.01
    for v in vis:
        for c in v.find("visual_map"):
            if c.has("znear"):
                znear = c.get("znear")
    ctx.znear = znear


def _check_unsupported(ctx):
    for el in ctx.root.children:
        if el.tag in _UNSUPPORTED_TOP:
            raise ctx.unsupported(el, _UNSUPPORTED_TOP[el.tag])
    if ctx.comp.get("fusestatic"):
        raise ctx.unsupported(ctx.comp, "compiler fusestatic", "fusestatic")


def _optional(modname, funcname):
    """Stage function from a compiler module, or None while that module is not written yet."""
    import importlib
    try:
        mod = importlib.import_module(f"{__name__}.{modname}")
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{modname}":
            return None
        raise
    return getattr(mod, funcname, None)


def compile_document(doc):
    """Compile a parsed Document into a Model."""
    ctx = Context(doc)
    _check_unsupported(ctx)
    opt = _options(ctx)
    ctx.opt = opt
    _sizes(ctx)
    assets = _optional("mesh", "compile_assets")
    mesh_props = _optional("mesh", "mesh_geom_properties")
    hfield_props = _optional("hfield", "hfield_geom_properties")
    if assets is not None:
        assets(ctx)
    elif ctx.root.find("asset"):
        for a in ctx.root.find("asset"):
            if a.children:
                raise ctx.unsupported(a.children[0], f"<{a.children[0].tag}> assets")
    from .body import compile_bodies
    compile_bodies(ctx, mesh_props, hfield_props)
    for mod, fn, tag in (("tendon", "compile_tendons", "tendon"), ("actuator", "compile_actuators", "actuator"),
                         ("sensor", "compile_sensors", "sensor"), ("equality", "compile_equality", "equality"),
                         ("contact", "compile_contact", "contact"), ("keyframe", "compile_keyframes", "keyframe"),
                         ("keyframe", "compile_custom", "custom")):
        stage = _optional(mod, fn)
        if stage is not None:
            stage(ctx)
        else:
            for sec in ctx.root.find(tag):
                if sec.children:
                    raise ctx.unsupported(sec.children[0], f"<{sec.children[0].tag}>")
    _defaults_for_missing(ctx)
    ctx.f["nactuator"] = ctx.f["nu"]   # MuJoCo 3.17 alias of nu
    from .sparsity import count_njmom, finalize_simple, make_sparsity, make_tendon_sparse
    finalize_simple(ctx.f)
    make_sparsity(ctx.f)
    make_tendon_sparse(ctx.f)
    count_njmom(ctx.f)
    total = ctx.comp.get("settotalmass")
    if total > 0:
        _set_total_mass(ctx.f, total)
    stat = Statistic(meaninertia=1.0, meanmass=1.0, meansize=0.2, extent=2.0, center=np.zeros(3))
    model = Model(ctx.f, {k: list(v) for k, v in ctx.names.items()}, opt, stat)
    setconst = _optional("setconst", "set_const")
    if setconst is not None:
        setconst(model, ctx)
    return model


def _defaults_for_missing(ctx):
    """Sizes of sections with no elements (so every count field exists even before its stage runs)."""
    f = ctx.f
    for k in ("nu", "na", "ntendon", "nwrap", "nsensor", "nsensordata", "neq", "npair", "nexclude", "nkey",
              "nmesh", "nhfield", "ntex", "nmat", "nnumeric", "ntext", "ntuple"):
        f.setdefault(k, 0)
    for k, v in ctx.nuser.items() if hasattr(ctx, "nuser") else ():
        f.setdefault("nuser_" + k, v)
    # empty per-object arrays of sections that have no objects (shapes as MjModel's)
    for name, shape in _EMPTY_SECTION_FIELDS.items():
        count = shape[0]
        if f.get(count, 0) == 0 and name not in f:
            f[name] = np.zeros((0,) + shape[1:], dtype=np.float64 if shape[-1] != "i" else np.int32) \
                if shape[-1] != "i" else np.zeros((0,) + shape[1:-1], dtype=np.int32)


# field -> (count field, trailing dims..., optional "i" for int32) for sections that may be empty
_EMPTY_SECTION_FIELDS = {
    "tendon_adr": ("ntendon", "i"), "tendon_num": ("ntendon", "i"), "tendon_armature": ("ntendon",),
    "tendon_stiffness": ("ntendon",), "tendon_stiffnesspoly": ("ntendon", 2), "tendon_damping": ("ntendon",),
    "tendon_dampingpoly": ("ntendon", 2), "tendon_lengthspring": ("ntendon", 2),
    "tendon_actfrclimited": ("ntendon", "i"), "tendon_actfrcrange": ("ntendon", 2),
    "wrap_type": ("nwrap", "i"), "wrap_objid": ("nwrap", "i"), "wrap_prm": ("nwrap",),
    "actuator_trntype": ("nu", "i"), "actuator_dyntype": ("nu", "i"), "actuator_gaintype": ("nu", "i"),
    "actuator_biastype": ("nu", "i"), "actuator_trnid": ("nu", 2, "i"), "actuator_actadr": ("nu", "i"),
    "actuator_actnum": ("nu", "i"), "actuator_group": ("nu", "i"), "actuator_ctrllimited": ("nu", "i"),
    "actuator_forcelimited": ("nu", "i"), "actuator_actlimited": ("nu", "i"), "actuator_ctrlrange": ("nu", 2),
    "actuator_forcerange": ("nu", 2), "actuator_actrange": ("nu", 2), "actuator_gear": ("nu", 6),
    "actuator_dynprm": ("nu", 10), "actuator_gainprm": ("nu", 10), "actuator_biasprm": ("nu", 10),
    "actuator_actearly": ("nu", "i"), "actuator_lengthrange": ("nu", 2), "actuator_cranklength": ("nu",),
    "actuator_damping": ("nu",), "actuator_dampingpoly": ("nu", 2), "actuator_armature": ("nu",),
    "actuator_outadr": ("nu", "i"), "actuator_ctrladr": ("nu", "i"), "actuator_delay": ("nu",),
    "actuator_plugin": ("nu", "i"),
    "eq_type": ("neq", "i"), "eq_obj1id": ("neq", "i"), "eq_obj2id": ("neq", "i"), "eq_objtype": ("neq", "i"),
    "eq_data": ("neq", 12), "pair_adhesion": ("npair",),
}


def _set_total_mass(f, total):
    """Scale body masses and inertias so that they sum to `total` (mj_setTotalmass)."""
    cur = 0.0
    for v in f["body_mass"][1:]:
        cur += v
    scale = max(1e-15, total / max(1e-15, cur))
    f["body_mass"] = f["body_mass"].copy()
    f["body_inertia"] = f["body_inertia"].copy()
    f["body_mass"][1:] *= scale
    f["body_inertia"][1:] *= scale
