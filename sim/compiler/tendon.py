"""<tendon>: fixed (joint-coefficient) and spatial (site / wrapping geom / pulley path) tendons.

Produces ntendon, nwrap, nuser_tendon and the tendon_* / wrap_* fields of MuJoCo's mjModel.  Also holds the
helpers shared by the other section compilers (user-data padding, the `*limited` auto rules, float32
rounding of colours).

tendon_lengthspring is left at MuJoCo's (-1, -1) sentinel when springlength is not given: MuJoCo replaces it
by the tendon length at qpos0 in mj_setConst, and so must the setconst stage.  tendon_length0,
tendon_invweight0, tendon_treeid/treenum and tendon_actuatorid are setconst quantities too.
"""

import numpy as np

from .context import farr, iarr, merge_singletons, store_columns

# mjtWrap
WRAP_JOINT, WRAP_PULLEY, WRAP_SITE, WRAP_SPHERE, WRAP_CYLINDER = 1, 2, 3, 4, 5
GEOM_SPHERE, GEOM_CYLINDER = 2, 5

# mjtLimited
LIMITED_FALSE, LIMITED_TRUE, LIMITED_AUTO = 0, 1, 2


# ------------------------------------------------------------------------------------------ shared helpers


def size_elem(ctx):
    """The merged <size> element (several may appear)."""
    return merge_singletons(ctx.root.find("size"), "size")


def user_rows(ctx, elems, what):
    """User arrays of `elems` padded with zeros to nuser_<what> columns.

    <size nuser_<what>="-1"> (the default) means "as long as the longest user array".  Returns (rows, nuser).
    """
    nuser = size_elem(ctx).get("nuser_" + what)
    users = [np.asarray(el.get("user", np.zeros(0)), dtype=np.float64) for el in elems]
    if nuser < -1:
        raise size_elem(ctx).error("nuser_" + what + " must be -1 or non-negative", "nuser_" + what)
    if nuser == -1:
        nuser = max([len(u) for u in users], default=0)
    rows = []
    for el, u in zip(elems, users):
        if len(u) > nuser:
            raise el.error(f"user has {len(u)} values, more than nuser_{what} = {nuser}", "user")
        row = np.zeros(nuser)
        row[: len(u)] = u
        rows.append(row)
    return rows, nuser


def check_autolimits(ctx, el, limited, rng, attr_prefix, range_attr):
    """MuJoCo's check for a `*limited="auto"` attribute with a range when compiler autolimits is false."""
    if limited == LIMITED_AUTO and not ctx.comp_of(el).get("autolimits") and not (rng[0] == 0 and rng[1] == 0):
        raise el.error(
            f'has `{range_attr}` but not `{attr_prefix}limited`; set the autolimits="true" '
            f'compiler option, specify `{attr_prefix}limited` explicitly ("true" or "false"), '
            f"or remove the `{range_attr}` attribute",
            range_attr,
        )


def is_limited(limited, rng):
    """MuJoCo's rule: limited="true", or "auto" with a non-empty range."""
    return limited == LIMITED_TRUE or (limited == LIMITED_AUTO and rng[0] < rng[1])


def f32(values):
    """Round float values through float32 (MuJoCo stores colours as float), returned as float64."""
    return np.asarray(values, dtype=np.float32).astype(np.float64)


def rows2(a, n, width):
    """Shape a list of rows into (n, width) even when empty."""
    return farr(a, width) if width else np.zeros((n, 0))


# ---------------------------------------------------------------------------------------------- tendons


def tendon_elements(ctx):
    """All <spatial>/<fixed> elements in document order (their order defines tendon ids)."""
    out = []
    for sec in ctx.root.find("tendon"):
        out.extend(c for c in sec.children if c.key in ("spatial", "fixed"))
    return out


def compile_tendon(ctx):
    """Fill ctx.f with the tendon and wrap fields; registers tendon names."""
    f = ctx.f
    elems = tendon_elements(ctx)
    for el in elems:
        ctx.add("tendon", el)
    user, nuser = user_rows(ctx, elems, "tendon")

    jnt_type = f.get("jnt_type", np.zeros(0, np.int32))
    geom_type = f.get("geom_type", np.zeros(0, np.int32))

    cols = {
        k: []
        for k in (
            "adr",
            "num",
            "matid",
            "group",
            "limited",
            "actfrclimited",
            "width",
            "solref_lim",
            "solimp_lim",
            "solref_fri",
            "solimp_fri",
            "range",
            "actfrcrange",
            "margin",
            "stiffness",
            "stiffnesspoly",
            "damping",
            "dampingpoly",
            "armature",
            "frictionloss",
            "lengthspring",
            "rgba",
        )
    }
    wtype, wobj, wprm = [], [], []

    for tid, el in enumerate(elems):
        path = _tendon_path(ctx, el, tid, jnt_type, geom_type)
        spatial = el.key == "spatial"
        armature = el.get("armature")
        if spatial:
            width = el.get("width")
            if width <= 0:
                raise el.error("spatial tendon must have positive width", "width")
            # mjCTendon::Compile checks the armature on the spatial path only: a fixed tendon keeps a negative one
            if armature < 0:
                raise el.error("tendon armature cannot be negative", "armature")
            if armature > 0 and any(t in (WRAP_SPHERE, WRAP_CYLINDER) for t, _, _ in path):
                raise el.error("geom wrapping is not supported with tendon armature", "armature")
        else:
            # fixed tendons have no visual attributes but keep the class (or MuJoCo) defaults
            width = _class_tendon(ctx, el).get("width", 0.003)

        limited = el.get("limited")
        rng = el.get("range")
        check_autolimits(ctx, el, limited, rng, "", "range")
        lim = is_limited(limited, rng)
        if lim and rng[0] >= rng[1]:
            raise el.error("invalid tendon range: range[0] must be smaller than range[1]", "range")
        afl = el.get("actuatorfrclimited")
        afr = el.get("actuatorfrcrange")
        check_autolimits(ctx, el, afl, afr, "actuatorfrc", "actuatorfrcrange")
        aflim = is_limited(afl, afr)
        if aflim and (afr[0] >= afr[1] or afr[0] > 0 or afr[1] < 0):
            raise el.error("invalid actuatorfrcrange: need lower < upper, lower <= 0 <= upper", "actuatorfrcrange")

        spring = np.array(el.get("springlength"), dtype=np.float64)
        # one value means both ends (MuJoCo copies it); a class default written with one value shows up
        # here as (v, -1), which is otherwise an invalid pair
        if "springlength" in el.raw:
            if len(el.raw["springlength"].split()) == 1:
                spring[1] = spring[0]
        elif spring[1] == -1 and spring[0] > -1:
            spring[1] = spring[0]
        if spring[0] > spring[1]:
            raise el.error("invalid springlength: lower value larger than upper value", "springlength")

        matid = -1
        material = el.get("material") if spatial else _class_tendon(ctx, el).get("material")
        if material and not ctx.discardvisual:
            matid = ctx.lookup("material", material, el, "material")

        cols["adr"].append(len(wtype))
        cols["num"].append(len(path))
        cols["matid"].append(matid)
        cols["group"].append(el.get("group"))
        cols["limited"].append(int(lim))
        cols["actfrclimited"].append(int(aflim))
        cols["width"].append(width)
        cols["solref_lim"].append(el.get("solreflimit"))
        cols["solimp_lim"].append(el.get("solimplimit"))
        cols["solref_fri"].append(el.get("solreffriction"))
        cols["solimp_fri"].append(el.get("solimpfriction"))
        cols["range"].append(rng)
        cols["actfrcrange"].append(afr)
        cols["margin"].append(el.get("margin"))
        stiff = el.get("stiffness")
        damp = el.get("damping")
        cols["stiffness"].append(stiff[0])
        cols["stiffnesspoly"].append(stiff[1:3])
        cols["damping"].append(damp[0])
        cols["dampingpoly"].append(damp[1:3])
        cols["armature"].append(armature)
        cols["frictionloss"].append(el.get("frictionloss"))
        cols["lengthspring"].append(spring)
        cols["rgba"].append(f32(el.get("rgba") if spatial else _class_tendon(ctx, el).get("rgba", [0.5, 0.5, 0.5, 1])))
        for t, o, p in path:
            wtype.append(t)
            wobj.append(o)
            wprm.append(p)

    n = len(elems)
    f["ntendon"] = n
    f["nwrap"] = len(wtype)
    f["nuser_tendon"] = nuser
    store_columns(
        f,
        "tendon_",
        cols,
        dict(
            solref_lim=2,
            solimp_lim=5,
            solref_fri=2,
            solimp_fri=5,
            range=2,
            actfrcrange=2,
            stiffnesspoly=2,
            dampingpoly=2,
            lengthspring=2,
            rgba=4,
        ),
        ints=("adr", "num", "matid", "group", "limited", "actfrclimited"),
    )
    f["tendon_user"] = rows2(user, n, nuser)
    f["wrap_type"] = iarr(wtype)
    f["wrap_objid"] = iarr(wobj)
    f["wrap_prm"] = farr(wprm)


def _class_tendon(ctx, el):
    """Tendon attributes set by the default class of `el` (used for attributes <fixed> cannot carry)."""
    cls = ctx.doc.classes.get(el.dclass or "main")
    return cls.slots.get("tendon", {}) if cls is not None else {}


def _tendon_path(ctx, el, tid, jnt_type, geom_type):
    """[(wrap_type, objid, prm)] of one tendon, with MuJoCo's path checks."""
    path = []
    if el.key == "fixed":
        for c in el.children:
            jid = ctx.lookup("joint", c.get("joint"), c, "joint")
            path.append((WRAP_JOINT, jid, c.get("coef")))
        if not path:
            raise el.error(
                f"tendon '{ctx.names['tendon'][tid]}' has an empty path: a fixed tendon needs at least one <joint>"
            )
        return path

    items = []  # (elem, type, objid, prm)
    for c in el.children:
        if c.key == "spatial_site":
            sid = ctx.lookup("site", c.get("site"), c, "site")
            items.append((c, WRAP_SITE, sid, 0.0))
        elif c.key == "spatial_geom":
            gid = ctx.lookup("geom", c.get("geom"), c, "geom")
            gt = int(geom_type[gid]) if gid < len(geom_type) else GEOM_SPHERE
            if gt == GEOM_CYLINDER:
                wt = WRAP_CYLINDER
            elif gt == GEOM_SPHERE:
                wt = WRAP_SPHERE
            else:
                raise c.error(f"wrapping geom '{c.get('geom')}' must be a sphere or a cylinder", "geom")
            side = -1
            if c.get("sidesite"):
                side = ctx.lookup("site", c.get("sidesite"), c, "sidesite")
            items.append((c, wt, gid, float(side)))
        else:  # pulley
            div = c.get("divisor")
            if div < 0:
                raise c.error("pulley divisor cannot be negative", "divisor")
            items.append((c, WRAP_PULLEY, -1, div))

    name = ctx.names["tendon"][tid] or f"#{tid}"
    if not items:
        raise el.error(f"tendon '{name}' has an empty path")
    if len(items) < 2:
        raise el.error(f"spatial tendon '{name}' path must contain at least two objects")
    sz = len(items)
    types = [t for _, t, _, _ in items]
    for i, (c, t, oid, prm) in enumerate(items):
        if t == WRAP_PULLEY:
            if i > 0 and types[i - 1] == WRAP_PULLEY:
                raise c.error(f"tendon '{name}': consecutive pulleys (path position {i})")
            if i == sz - 1:
                raise c.error(f"tendon '{name}': path ends with a pulley")
        elif t == WRAP_SITE:
            if (i == 0 or types[i - 1] == WRAP_PULLEY) and (i == sz - 1 or types[i + 1] == WRAP_PULLEY):
                raise c.error(
                    f"tendon '{name}': site at path position {i} needs a neighbor that is not a pulley", "site"
                )
            if i < sz - 1 and types[i + 1] == WRAP_SITE and items[i + 1][2] == oid:
                raise c.error(f"tendon '{name}': site at path position {i} is repeated", "site")
        else:
            if i == 0 or i == sz - 1 or types[i - 1] != WRAP_SITE or types[i + 1] != WRAP_SITE:
                raise c.error(f"tendon '{name}': wrapping geom at path position {i} must be between two sites", "geom")
        path.append((t, oid, prm))
    return path


compile_tendons = compile_tendon  # name used by the pipeline in compiler/__init__.py
