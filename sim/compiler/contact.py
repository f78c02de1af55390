"""<contact>: explicit geom pairs (<pair>) and excluded body pairs (<exclude>) -> pair_* / exclude_signature,
npair / nexclude.

MuJoCo's pair attributes all have defined defaults when read from MJCF (condim 3, friction 1 1 0.005 0.0001
0.0001, solref 0.02 1, solimp 0.9 0.95 0.001 0.5 2, margin 0, gap 0), so the geom-mixing rules of
mjCPair::Compile (which only fill *undefined* values, i.e. pairs made through the C API) never apply to an MJCF
pair: a pair takes its values from its attributes and default class only.  Checked against mujoco 3.17.
The two geoms (bodies) are ordered so that the first has the smaller body id; the signature packs the body ids
as (body1 << 16) + body2.  Like MuJoCo, pairs and excludes are stable-sorted by signature, which defines their
ids (and the order of their names).
"""

from .context import farr, iarr


def compile_contact(ctx):
    """Fill ctx.f with the pair and exclude fields; registers pair and exclude names."""
    f = ctx.f
    pairs, excludes = [], []
    for sec in ctx.root.find("contact"):
        for c in sec.children:
            (pairs if c.key == "pair" else excludes).append(c)
    geom_body = f["geom_bodyid"]

    cols = {
        k: []
        for k in (
            "dim",
            "geom1",
            "geom2",
            "signature",
            "solref",
            "solreffriction",
            "solimp",
            "margin",
            "gap",
            "adhesion",
            "friction",
        )
    }
    resolved = []
    for el in pairs:
        g1 = ctx.lookup("geom", el.get("geom1"), el, "geom1")
        g2 = ctx.lookup("geom", el.get("geom2"), el, "geom2")
        if geom_body[g1] > geom_body[g2]:
            g1, g2 = g2, g1
        resolved.append(((int(geom_body[g1]) << 16) + int(geom_body[g2]), g1, g2, el))
    resolved.sort(key=lambda r: r[0])  # stable
    for sig, g1, g2, el in resolved:
        ctx.add("pair", el)
        condim = el.get("condim")
        if condim not in (1, 3, 4, 6):
            raise el.error(f"invalid condim {condim} in contact pair: must be 1, 3, 4 or 6", "condim")
        cols["dim"].append(condim)
        cols["geom1"].append(g1)
        cols["geom2"].append(g2)
        cols["signature"].append(sig)
        cols["solref"].append(el.get("solref"))
        cols["solreffriction"].append(el.get("solreffriction"))
        cols["solimp"].append(el.get("solimp"))
        cols["margin"].append(el.get("margin"))
        cols["gap"].append(el.get("gap"))
        cols["adhesion"].append(el.get("adhesion"))
        cols["friction"].append(el.get("friction"))

    ex = []
    for el in excludes:
        b1 = ctx.lookup("body", el.get("body1"), el, "body1")
        b2 = ctx.lookup("body", el.get("body2"), el, "body2")
        if b1 > b2:
            b1, b2 = b2, b1
        ex.append(((b1 << 16) + b2, el))
    ex.sort(key=lambda r: r[0])  # stable
    sigs = []
    for sig, el in ex:
        ctx.add("exclude", el)
        sigs.append(sig)

    f["npair"] = len(pairs)
    f["nexclude"] = len(excludes)
    for k in ("dim", "geom1", "geom2", "signature"):
        f["pair_" + k] = iarr(cols[k])
    f["pair_solref"] = farr(cols["solref"], 2)
    f["pair_solreffriction"] = farr(cols["solreffriction"], 2)
    f["pair_solimp"] = farr(cols["solimp"], 5)
    f["pair_margin"] = farr(cols["margin"])
    f["pair_gap"] = farr(cols["gap"])
    f["pair_adhesion"] = farr(cols["adhesion"])
    f["pair_friction"] = farr(cols["friction"], 5)
    f["exclude_signature"] = iarr(sigs)
