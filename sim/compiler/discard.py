"""<compiler discardvisual="true">: drop the purely visual geoms, meshes, materials and textures
(mjCModel::TryCompile and mjCModel::IndexAssets(discard=true) in MuJoCo's user_model.cc).

MuJoCo's rules, each checked against mujoco 3.17:
- before anything is compiled, every material and texture is deleted (so geom/site/tendon material
  references are dropped, nmat = ntex = 0); the source also clears mesh texture coordinates there, but in
  3.17 meshes keep them (inline and from files: measured);
- after the whole model is compiled, a geom is visual when contype == conaffinity == 0 and it is not named by
  a contact pair, a geom-wrapping spatial tendon, a sensor (object or reference of type geom) or a tuple;
  visual geoms are removed (ids of the others shift down, every geom reference is renumbered);
- a mesh is visual unless a remaining geom names it (whatever that geom's type) or a sensor refers to it;
  visual meshes are removed the same way (unreferenced meshes included);
- bodies keep the inertia computed with all their geoms (MuJoCo turns it into an explicit inertial), while
  body_contype / conaffinity / margin / geomadr / geomnum describe the remaining geoms;
- with inertiafromgeom="true", removing a geom whose mass entered a (non-world) body's inertia is an error
  in 3.17 (ModelError naming the body).
"""

import numpy as np

from .mesh import GEOM_MESH, GEOM_SDF, fill_mesh_fields

OBJ_GEOM, OBJ_MESH = 5, 10
WRAP_SPHERE, WRAP_CYLINDER = 4, 5


def discard_visual(ctx):
    """Remove visual geoms and meshes from ctx.f / ctx.names (run after every stage that refers to geoms)."""
    f = ctx.f
    ngeom = int(f["ngeom"])
    referenced = set()
    for k in ("pair_geom1", "pair_geom2"):
        referenced.update(int(g) for g in f.get(k, ()))
    for t, o in zip(f.get("wrap_type", ()), f.get("wrap_objid", ())):
        if t in (WRAP_SPHERE, WRAP_CYLINDER):
            referenced.add(int(o))
    mesh_refs = set()
    for tk, ik in (
        ("sensor_objtype", "sensor_objid"),
        ("sensor_reftype", "sensor_refid"),
        ("tuple_objtype", "tuple_objid"),
    ):
        for t, o in zip(f.get(tk, ()), f.get(ik, ())):
            if t == OBJ_GEOM:
                referenced.add(int(o))
            elif t == OBJ_MESH and tk != "tuple_objtype":
                mesh_refs.add(int(o))
    keep = np.array(
        [
            not (f["geom_contype"][i] == 0 and f["geom_conaffinity"][i] == 0 and i not in referenced)
            for i in range(ngeom)
        ],
        dtype=bool,
    )
    if int(ctx.comp.get("inertiafromgeom")) == 1:
        # 3.17 refuses to drop a geom whose mass entered a body's geom-inferred inertia (not in the older
        # source snapshot; measured: any non-world body, explicit <inertial> or not, fused static ones too)
        for i in np.flatnonzero(~keep):
            owner = ctx.geom_inertia_owner[i]
            if owner is not None:
                raise owner.error(
                    "discarding visual geoms would change the inertia of this body, which "
                    "inertiafromgeom 'true' infers from its geoms; with inertiafromgeom 'auto' it "
                    "is kept as an explicit inertial"
                )
    _remove_geoms(ctx, keep)
    _remove_meshes(ctx, mesh_refs)


def _newids(keep):
    """old id -> new id (-1 for removed)."""
    new = np.full(len(keep), -1, dtype=np.int64)
    new[keep] = np.arange(int(np.sum(keep)))
    return new


def _remove_geoms(ctx, keep):
    f = ctx.f
    ngeom = len(keep)
    if keep.all():
        return
    new = _newids(keep)
    # per-geom arrays
    for k in list(f):
        if k.startswith("geom_") and isinstance(f[k], np.ndarray) and f[k].ndim and len(f[k]) == ngeom:
            f[k] = np.ascontiguousarray(f[k][keep])
    f["ngeom"] = int(np.sum(keep))
    _remap_names(ctx, "geom", keep)
    # references to geoms
    for k in ("pair_geom1", "pair_geom2"):
        if k in f and len(f[k]):
            f[k] = new[f[k]].astype(np.int32)
    if "wrap_type" in f and len(f["wrap_type"]):
        sel = (f["wrap_type"] == WRAP_SPHERE) | (f["wrap_type"] == WRAP_CYLINDER)
        f["wrap_objid"] = f["wrap_objid"].copy()
        f["wrap_objid"][sel] = new[f["wrap_objid"][sel]]
    for tk, ik in (
        ("sensor_objtype", "sensor_objid"),
        ("sensor_reftype", "sensor_refid"),
        ("tuple_objtype", "tuple_objid"),
    ):
        if tk in f and len(f[tk]):
            sel = f[tk] == OBJ_GEOM
            f[ik] = f[ik].copy()
            f[ik][sel] = new[f[ik][sel]]
    # per-body geom ranges and collision summaries
    bodyid = f["geom_bodyid"]
    nbody = int(f["nbody"])
    num = np.bincount(bodyid, minlength=nbody).astype(np.int32)
    adr = np.full(nbody, -1, dtype=np.int32)
    contype = np.zeros(nbody, dtype=np.int32)
    conaff = np.zeros(nbody, dtype=np.int32)
    margin = np.zeros(nbody)
    for g in range(len(bodyid) - 1, -1, -1):
        b = bodyid[g]
        adr[b] = g
        contype[b] |= f["geom_contype"][g]
        conaff[b] |= f["geom_conaffinity"][g]
        margin[b] = max(margin[b], f["geom_margin"][g] + f["geom_gap"][g])
    f["body_geomnum"], f["body_geomadr"] = num, adr
    f["body_contype"], f["body_conaffinity"], f["body_margin"] = contype, conaff, margin


def _remap_names(ctx, objtype, keep):
    names = [n for n, k in zip(ctx.names[objtype], keep) if k]
    elems = [e for e, k in zip(ctx.elems[objtype], keep) if k]
    ctx.names[objtype] = names
    ctx.elems[objtype] = elems
    ctx.ids[objtype] = {n: i for i, n in enumerate(names) if n}


def _remove_meshes(ctx, mesh_refs):
    f = ctx.f
    nmesh = len(ctx.meshes)
    used = set(mesh_refs)
    for el in ctx.elems["geom"]:
        name = el.get("mesh", "") if el is not None else ""
        if name:
            used.add(ctx.ids["mesh"][name])
    keep = np.array([i in used for i in range(nmesh)], dtype=bool)
    if keep.all():
        return
    new = _newids(keep)
    ctx.meshes = [m for m, k in zip(ctx.meshes, keep) if k]
    fill_mesh_fields(f, ctx.meshes)
    _remap_names(ctx, "mesh", keep)
    t = f["geom_type"]
    sel = ((t == GEOM_MESH) | (t == GEOM_SDF)) & (f["geom_dataid"] >= 0)
    f["geom_dataid"] = f["geom_dataid"].copy()
    f["geom_dataid"][sel] = new[f["geom_dataid"][sel]]
    for tk, ik in (("sensor_objtype", "sensor_objid"), ("sensor_reftype", "sensor_refid")):
        if tk in f and len(f[tk]):
            sel = f[tk] == OBJ_MESH
            f[ik] = f[ik].copy()
            f[ik][sel] = new[f[ik][sel]]
