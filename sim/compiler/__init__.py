"""MJCF compiler pipeline: Document -> Model (mjCModel::TryCompile in MuJoCo).

options -> assets -> kinematic tree -> tendons -> actuators -> sensors -> equality -> contact -> keyframes ->
derived constants (mj_setConst: the set_constants stage sim.loader passes, sim/setconst.py).
"""

import numpy as np

from sim.mjcf import schema
from sim.model import Model, Option, Statistic
from .actuator import compile_actuators
from .body import compile_bodies
from .bvh import compile_bvh
from .contact import compile_contact
from .context import Context, merge_singletons
from .discard import discard_visual
from .equality import compile_equality
from .hfield import hfield_geom_properties
from .keyframe import compile_custom, compile_keyframes
from .assets import compile_assets
from .mesh import mesh_geom_properties
from .names import DEFAULT_MODEL_NAME, make_names, make_paths
from .sensor import compile_sensors
from .skin import compile_skins
from .sparsity import count_njmom, finalize_simple, make_sparsity, make_tendon_sparse
from .tendon import compile_tendons
from .visual import compile_visual

# section containers / elements numjoco parses but cannot simulate: fail loudly at load time
_UNSUPPORTED_TOP = {"extension": "<extension> (plugins)"}


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
    # a zero or negative timestep is accepted as MuJoCo 3.17 accepts it (time stands still or runs backwards)
    return Option(
        timestep=g("timestep"),
        impratio=g("impratio"),
        tolerance=g("tolerance"),
        ls_tolerance=g("ls_tolerance"),
        noslip_tolerance=g("noslip_tolerance"),
        ccd_tolerance=g("ccd_tolerance"),
        sleep_tolerance=g("sleep_tolerance"),
        gravity=np.array(g("gravity"), dtype=np.float64),
        wind=np.array(g("wind"), dtype=np.float64),
        magnetic=np.array(g("magnetic"), dtype=np.float64),
        density=g("density"),
        viscosity=g("viscosity"),
        o_margin=g("o_margin"),
        o_solref=np.array(g("o_solref"), dtype=np.float64),
        o_solimp=np.array(g("o_solimp"), dtype=np.float64),
        o_friction=np.array(g("o_friction"), dtype=np.float64),
        integrator=g("integrator"),
        cone=g("cone"),
        jacobian=g("jacobian"),
        solver=g("solver"),
        iterations=g("iterations"),
        ls_iterations=g("ls_iterations"),
        noslip_iterations=g("noslip_iterations"),
        ccd_iterations=g("ccd_iterations"),
        sdf_iterations=g("sdf_iterations"),
        sdf_initpoints=g("sdf_initpoints"),
        disableflags=disableflags,
        enableflags=enableflags,
        disableactuator=disable_act,
    )


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
    ctx.memory = -1
    ctx.nstack = size.get("nstack")
    if size.has("memory"):
        # a byte count with an optional K/M/G/T/P/E suffix (powers of 1024): the size of MuJoCo's arena, which sizes
        # numjoco's Data buffers (sim/io.py data_sizes)
        import re

        mem = re.fullmatch(r"\s*(-1|\+?[0-9]+)([KMGTPEkmgtpe]?)\s*", size.get("memory"))
        if not mem:
            raise size.error("invalid memory size, expected a byte count with optional K/M/G/T/P/E suffix", "memory")
        if mem.group(1) != "-1":
            ctx.memory = int(mem.group(1)) << (10 * ("KMGTPE".find(mem.group(2).upper()) + 1) if mem.group(2) else 0)
    vis = ctx.root.find("visual")
    znear = 0.01
    for v in vis:
        for c in v.find("visual_map"):
            if c.has("znear"):
                znear = c.get("znear")
    ctx.znear = znear


def _arena(ctx):
    """narena: the size of MuJoCo's mjData arena for this model (mj_makeModel's rule, sim/io.py arena_size)."""
    import types

    from sim.io import arena_size

    f = ctx.f
    keys = ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "neq", "ntendon", "nwrap", "nconmax", "njmax")
    f["narena"] = arena_size(types.SimpleNamespace(**{k: int(f[k]) for k in keys}), ctx.memory, ctx.nstack)


def _check_unsupported(ctx):
    for el in ctx.root.children:
        if el.tag in _UNSUPPORTED_TOP:
            raise ctx.unsupported(el, _UNSUPPORTED_TOP[el.tag])


def compile_document(doc, set_constants=None, context=False):
    """Compile a parsed Document into a Model.

    set_constants: the mj_setConst stage, called as set_constants(model, ctx) on the compiled model (sim.loader
    passes sim.setconst.set_const, which runs the engine at qpos0 and refuses features the core does not
    simulate); None or False skips it: the static fields are complete, the derived ones are not.
    context=True returns (Model, Context) (the element behind each object id, for model composition).
    """
    keep = set()
    while True:
        ctx = Context(doc)
        ctx.keep_static = keep
        _check_unsupported(ctx)
        opt = _options(ctx)
        ctx.opt = opt
        _sizes(ctx)
        compile_assets(ctx)
        compile_bodies(ctx, mesh_geom_properties, hfield_geom_properties)
        if not ctx.refused_fuse - keep:
            break
        # static bodies compiler fusestatic may not fuse (sim/compiler/body.py _fuse_static): compiled again with
        # them kept, which only adds bodies, so this ends
        keep = keep | ctx.refused_fuse
    compile_skins(ctx)
    for stage in (
        compile_tendons,
        compile_actuators,
        compile_sensors,
        compile_equality,
        compile_contact,
        compile_keyframes,
        compile_custom,
    ):
        stage(ctx)
    if ctx.discardvisual:
        discard_visual(ctx)
    _defaults_for_missing(ctx)
    ctx.f["nactuator"] = ctx.f["nu"]  # MuJoCo 3.17 alias of nu
    finalize_simple(ctx.f)
    make_sparsity(ctx.f)
    make_tendon_sparse(ctx.f)
    count_njmom(ctx.f)
    compile_bvh(ctx)
    make_names(ctx.f, ctx.names, ctx.root.get("model", DEFAULT_MODEL_NAME) or DEFAULT_MODEL_NAME)
    make_paths(ctx, ctx.f)
    total = ctx.comp.get("settotalmass")
    if total > 0:
        _set_total_mass(ctx.f, total)
    _arena(ctx)
    stat = Statistic(meaninertia=1.0, meanmass=1.0, meansize=0.2, extent=2.0, center=np.zeros(3))
    model = Model(ctx.f, {k: list(v) for k, v in ctx.names.items()}, opt, stat, compile_visual(ctx))
    if set_constants:
        try:
            set_constants(model, ctx)
        except MemoryError as e:  # MuJoCo: "Could not allocate memory" (mjData for mj_setConst)
            attr = next((k for k in ("njmax", "nconmax") if ctx.size.has(k)), None)
            raise (ctx.size if attr else ctx.root).error(f"the model cannot be simulated here: {e}", attr) from None
    return (model, ctx) if context else model


def compile_submodel(doc):
    """(Model without constants, Context) of a model file attached with <attach model>: what model composition
    (sim/mjcf/compose.py) reads of it (its keyframes, the element behind each object id); sim.loader hands it to
    the reader."""
    return compile_document(doc, context=True)


def _defaults_for_missing(ctx):
    """nuser_* sizes of the body-tree objects (the section stages set their own)."""
    for k, v in ctx.nuser.items():
        ctx.f.setdefault("nuser_" + k, v)


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
