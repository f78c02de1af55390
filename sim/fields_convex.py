"""Fields of the convex narrowphase (GJK/EPA/multi-contact for meshes, ellipsoids, cylinders) and height fields.

Declares the mesh / height-field Model arrays the convex kernels read and their per-world scratch: the two
collision objects (sim.collision.support), the GJK status and simplex, the EPA polytope (sized by
opt.ccd_iterations as mjc_ccdSize) and the multi-contact polygon buffers (sized by the largest mesh polygon
and vertex degree).
"""
import numpy as np

from sim.constants import MAXCONPAIR, OPT_CCD_ITERATIONS

MODEL_SCALARS = ['nmesh', 'nhfield']
MODEL_ARRAYS = [
    ('mesh_vertadr', 1, 'i'), ('mesh_vertnum', 1, 'i'), ('mesh_vert', 2, 'f'),
    ('mesh_faceadr', 1, 'i'), ('mesh_facenum', 1, 'i'), ('mesh_face', 2, 'i'),
    ('mesh_graphadr', 1, 'i'), ('mesh_graph', 1, 'i'), ('mesh_extrema', 2, 'i'),
    ('mesh_polynum', 1, 'i'), ('mesh_polyadr', 1, 'i'), ('mesh_polynormal', 2, 'f'),
    ('mesh_polyvertadr', 1, 'i'), ('mesh_polyvertnum', 1, 'i'), ('mesh_polyvert', 1, 'i'),
    ('mesh_polymapadr', 1, 'i'), ('mesh_polymapnum', 1, 'i'), ('mesh_polymap', 1, 'i'),
    ('hfield_size', 2, 'f'), ('hfield_nrow', 1, 'i'), ('hfield_ncol', 1, 'i'), ('hfield_adr', 1, 'i'),
    ('hfield_data', 1, 'f'),
]
DATA_ARRAYS = [
    ('scr_ccd_f', 3, 'f'), ('scr_ccd_i', 3, 'i'), ('scr_prism', 3, 'f'),
    ('scr_simplex', 3, 'f'), ('scr_simplex_i', 3, 'i'), ('scr_simplex2', 3, 'f'), ('scr_simplex2_i', 3, 'i'),
    ('scr_gjk_x1', 3, 'f'), ('scr_gjk_x2', 3, 'f'), ('scr_gjk_dist', 2, 'f'), ('scr_gjk_st', 2, 'i'),
    ('scr_gjk_lam', 2, 'f'), ('scr_gjk_tmp', 2, 'f'), ('scr_gjk_nrm', 3, 'f'), ('scr_gjk_s', 2, 'i'),
    ('scr_pt_v', 3, 'f'), ('scr_pt_vi', 3, 'i'), ('scr_pt_fi', 3, 'i'), ('scr_pt_ff', 3, 'f'),
    ('scr_pt_map', 2, 'i'), ('scr_pt_hzn', 3, 'i'), ('scr_pt_stk', 3, 'i'), ('scr_pt_n', 2, 'i'),
    ('scr_pt_c', 2, 'f'),
    ('scr_mc_vi', 3, 'i'), ('scr_mc_vv', 4, 'f'), ('scr_mc_n', 4, 'f'), ('scr_mc_idx', 3, 'i'),
    ('scr_mc_end', 3, 'f'), ('scr_mc_face', 4, 'f'), ('scr_mc_poly', 4, 'f'), ('scr_mc_pn', 3, 'f'),
    ('scr_mc_pd', 2, 'f'), ('scr_mc_tmp', 2, 'i'),
]


def _mesh_extrema(m):
    """mesh_extrema (nmesh, 27): graph-local id of the vertex farthest along each 3x3x3 grid direction."""
    nmesh = int(m.nmesh)
    out = np.zeros((nmesh, 27), np.int32)
    graph = np.asarray(m.mesh_graph)
    vert = np.asarray(m.mesh_vert, np.float32).reshape(-1, 3)
    for i in range(nmesh):
        ga = int(m.mesh_graphadr[i])
        if ga < 0:
            continue
        nv = int(graph[ga])
        gid = graph[ga + 2 + nv:ga + 2 + 2 * nv]
        v = vert[int(m.mesh_vertadr[i]) + gid]
        k = 0
        for cx in (-1, 0, 1):
            for cy in (-1, 0, 1):
                for cz in (-1, 0, 1):
                    dot = (v[:, 0] * np.float32(cx) + v[:, 1] * np.float32(cy)) + v[:, 2] * np.float32(cz)
                    out[i, k] = int(np.argmax(dot))   # first maximum, as the strict '>' scan
                    k += 1
    return out


def model_arrays(m):
    """Derived convex-collision model arrays (everything else is read from m by name)."""
    if getattr(m, 'mesh_extrema', None) is not None:
        return {}
    return dict(mesh_extrema=_mesh_extrema(m))


def _ccd_iterations(m):
    opt = m.opt
    it = getattr(opt, 'ccd_iterations', None)
    if it is None:
        it = np.asarray(opt)[OPT_CCD_ITERATIONS]
    return int(it)


def data_shapes(m, size):
    """Per-world shapes of the convex-collision scratch."""
    n = max(_ccd_iterations(m), 1)
    nv, nf = 5 + n, 6 * n
    pnum = np.asarray(getattr(m, 'mesh_polyvertnum', np.zeros(0)))
    mnum = np.asarray(getattr(m, 'mesh_polymapnum', np.zeros(0)))
    # polygons: box faces (4), cylinder caps (16-gons), mesh polygons
    pmax = max(16, int(pnum.max()) if pnum.size else 0, int(getattr(m, 'npolygonmax', 0) or 0))
    dmax = max(3, int(mnum.max()) if mnum.size else 0, int(getattr(m, 'nmeshdegmax', 0) or 0))
    return dict(
        scr_ccd_f=(2, 20), scr_ccd_i=(2, 8), scr_prism=(6, 3),
        scr_simplex=(4, 9), scr_simplex_i=(4, 2), scr_simplex2=(4, 9), scr_simplex2_i=(4, 2),
        scr_gjk_x1=(MAXCONPAIR, 3), scr_gjk_x2=(MAXCONPAIR, 3), scr_gjk_dist=(MAXCONPAIR,), scr_gjk_st=(8,),
        scr_gjk_lam=(4,), scr_gjk_tmp=(4,), scr_gjk_nrm=(4, 3), scr_gjk_s=(4,),
        scr_pt_v=(nv, 9), scr_pt_vi=(nv, 2), scr_pt_fi=(nf, 7), scr_pt_ff=(nf, 4), scr_pt_map=(nf,),
        scr_pt_hzn=(nf, 2), scr_pt_stk=(nf, 3), scr_pt_n=(8,), scr_pt_c=(3,),
        scr_mc_vi=(2, 3), scr_mc_vv=(2, 3, 3), scr_mc_n=(2, dmax, 3), scr_mc_idx=(2, dmax),
        scr_mc_end=(dmax, 3), scr_mc_face=(2, pmax, 3), scr_mc_poly=(2, 2 * pmax + 2, 3), scr_mc_pn=(pmax, 3),
        scr_mc_pd=(pmax,), scr_mc_tmp=(4,),
    )
