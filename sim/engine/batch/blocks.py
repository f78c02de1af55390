"""A batch's world-minor blocks: the Data fields the block kernels read and write, laid out (nblock, *per-world
shape, LANES) so that element [i, j] of the LANES worlds of block b is one `<LANES x double>` (sim/jit/simd.py), the
block struct that carries them into jitted code, and the transposes between them and Data's (nworld, ...) rows.

Data's rows stay the home of every field: the batch step (sim/engine/batch/step.py) loads a block's inputs from the
rows, runs the block kernels, and stores into the rows what the per-world stages after them read and, at the end
of the call, everything the block kernels wrote.  The last block's lanes past nworld repeat the last world; their
results are never stored.
"""

import numpy as np
from numba import types
from numba.experimental import structref

from sim.jit import njit, short_struct_type
from sim.jit.simd import LANES, vld, vst, lane, with_lane, splat, tile_to_rows, rows_to_tile, ld_flat, st_flat
from sim.jit.structs import struct_alloc, struct_new
from sim.constants import MJ_NSOLVER
from sim.types import DATA_ARRAYS, data_shapes

# the solver statistics a block keeps (island 0's MJ_NSOLVER iterations)
SOLVER_STATS = tuple(
    "solver_" + n for n in ("improvement", "gradient", "lineslope", "nactive", "nchange", "neval", "nupdate")
)

# Data fields with a world-minor copy: what the block kernels read or write (a kernel that touches another field
# fails to compile for a block: the field has no `d.<name>` in the block struct)
BLOCK_FIELDS = (
    "qpos",
    "qvel",
    "mocap_pos",
    "mocap_quat",
    "xpos",
    "xquat",
    "xmat",
    "xanchor",
    "xaxis",
    "xipos",
    "ximat",
    "geom_xpos",
    "geom_xmat",
    "site_xpos",
    "site_xmat",
    "subtree_com",
    "cinert",
    "cdof",
    "crb",
    "M",
    "qLD",
    "qLDiagInv",
    "cvel",
    "cdof_dot",
    "qfrc_bias",
    "scr_body6a",
    "scr_body6b",
)
# the warmstart and the primal solver on a block (sim/engine/batch/solver.py): a block's rows, the solver's
# inputs, outputs and scratch (every one a float here, the constraint states too), the statistics of island 0
SOLVER_FIELDS = (
    "efc_J",
    "efc_b",
    "efc_state",
    "efc_D",
    "efc_R",
    "efc_frictionloss",
    "efc_aref",
    "efc_force",
    "qfrc_smooth",
    "qacc_smooth",
    "qacc",
    "qfrc_constraint",
    "scr_slv_nv",
    "scr_slv_efc",
    "scr_slv_quad",
    "scr_slv_int",
    "scr_slv_H",
    "scr_slv_Hc",
) + SOLVER_STATS
# Data's own (nworld, ...) rows in the block struct: per-lane updates from block kernels (warnings, the
# pre-contacts the block colliders store for each lane's world)
ROW_FIELDS = (
    "warning_number",
    "warning_lastinfo",
    "scr_con_dist",
    "scr_con_pos",
    "scr_con_normal",
    "scr_con_tangent",
)
# block scratch of the block kernels, world-minor as BLOCK_FIELDS (name -> per-world shape from the model): the
# body boxes of the broadphase
BLOCK_SCRATCH = (("bp_aamm", lambda m: (int(m.nbody), 6)),)

_NDIM = {n: nd for n, nd, _ in DATA_ARRAYS}


@structref.register
@short_struct_type
class BlockType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class BlockStruct(structref.StructRefProxy):
    """Opaque handle to a batch's block struct."""


structref.define_boxing(BlockType, BlockStruct)

# the block step's own per-world values: RK4's start time, and the watched warning counters and the task's
# divergence counter at the start of the call; per block, the broadphase's leaf pairs of two multi-geom bodies and
# the block solver's lane table (sim/engine/batch/solver.py: source world, rows, iterations, statistics of each
# lane)
OWN_FIELDS = (
    ("rk_t0", types.Array(types.float64, 1, "C")),
    ("lane_state", types.Array(types.int64, 2, "C")),
    ("bp_leaf", types.Array(types.int64, 3, "C")),
    ("slv_lanes", types.Array(types.int64, 3, "C")),
)
NLANE_STATE = 5

_KIND = {n: k for n, _, k in DATA_ARRAYS}

BLOCK_TYPE = BlockType(
    tuple(
        [(n, types.Array(types.float64, _NDIM[n] + 1, "C")) for n in BLOCK_FIELDS + SOLVER_FIELDS]
        + [(n, types.Array(types.float64, 4, "C")) for n, _ in BLOCK_SCRATCH]
        + [(n, types.Array(types.float64 if _KIND[n] == "f" else types.int32, _NDIM[n], "C")) for n in ROW_FIELDS]
        + list(OWN_FIELDS)
        + [("nworld", types.int64), ("nblock", types.int64)]
    )
)


@njit(refcount=True)
def _alloc(struct_type):
    """An empty block struct (one compile)."""
    return struct_alloc(struct_type)


class Blocks:
    """The world-minor copies of BLOCK_FIELDS for a batch Data of model m (sizes as the Data's) and their struct."""

    def __init__(self, m, data):
        nworld = data.nworld
        self.nworld = nworld
        self.nblock = (nworld + LANES - 1) // LANES
        shapes = dict(data_shapes(m, dict(nconmax=data.nconmax, njmax=data.njmax)))
        for n in SOLVER_STATS:
            shapes[n] = (MJ_NSOLVER,)
        self.arrays = {n: np.zeros((self.nblock,) + tuple(shapes[n]) + (LANES,)) for n in BLOCK_FIELDS + SOLVER_FIELDS}
        for n, shape in BLOCK_SCRATCH:
            self.arrays[n] = np.zeros((self.nblock,) + shape(m) + (LANES,))
        self.own = dict(
            rk_t0=np.zeros(nworld),
            lane_state=np.zeros((nworld, NLANE_STATE), np.int64),
            bp_leaf=np.zeros((self.nblock,) + tuple(shapes["scr_leafpair"]), np.int64),
            slv_lanes=np.zeros((self.nblock, 4, LANES), np.int64),
        )
        values = [self.arrays[n] for n in BLOCK_FIELDS + SOLVER_FIELDS] + [self.arrays[n] for n, _ in BLOCK_SCRATCH]
        values += [data._arrays[n] for n in ROW_FIELDS]
        values += [self.own[n] for n, _ in OWN_FIELDS]
        self.struct = struct_new(_alloc, BLOCK_TYPE, values + [nworld, self.nblock])


# ------------------------------------------------------------------------------------------------------------
# transposes of one block between Data's rows (nworld, *shape) and the block's (*shape, LANES) storage


@njit(cache=True)
def rows_to_block(rows, blk, b, nworld):
    """blk[b] (*shape, LANES) lane l = rows[b*LANES + l] (*shape), lanes past nworld repeating the last world:
    LANES x LANES tile transposes of a full block, element by element for the rest."""
    nw = rows.shape[0]
    n = rows.size // nw if nw else 0
    S = blk[b]
    w0 = b * LANES
    r = 0
    if w0 + LANES <= nworld:
        while r + LANES <= n:
            rows_to_tile(rows, w0 * n + r, n, S, r)
            r += LANES
    for rr in range(r, n):
        v = splat(0.0)
        for k in range(LANES):
            v = with_lane(v, k, ld_flat(rows, min(w0 + k, nworld - 1) * n + rr))
        vst(S, rr, v)


@njit(cache=True)
def block_to_rows(blk, rows, b, nworld, mask):
    """rows[b*LANES + l] = blk[b] lane l for the lanes l < nworld - b*LANES whose bit is set in mask: LANES x LANES
    tile transposes of a full block with every lane set, element by element for the rest."""
    nw = rows.shape[0]
    n = rows.size // nw if nw else 0
    S = blk[b]
    w0 = b * LANES
    r = 0
    if w0 + LANES <= nworld and mask == (1 << LANES) - 1:
        while r + LANES <= n:
            tile_to_rows(S, r, rows, w0 * n + r, n)
            r += LANES
    for rr in range(r, n):
        v = vld(S, rr)
        for k in range(min(LANES, nworld - w0)):
            if mask & (1 << k):
                st_flat(rows, (w0 + k) * n + rr, lane(v, k))
