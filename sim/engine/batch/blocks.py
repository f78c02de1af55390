"""A batch's smooth-stage fields laid out world-minor in blocks of LANES worlds, the drivers that run the block
kernels (sim/engine/batch/smooth.py) over all blocks, and the transposes between Data's (nworld, ...) rows and the
blocks.

    b = SmoothBlocks(m, nworld)
    b.load(d)                      # qpos, qvel, mocap of every world into the blocks
    b.run(ALL)                     # kinematics .. rne on every block
    b.store(d, b.fields)           # back into Data's rows

A field of per-world shape (n, k) is an array (nblock, n*k, LANES); the last block's lanes past nworld repeat the
last world (their results are never stored).
"""

import numpy as np

from sim.jit import njit

from sim.engine.batch.simd import LANES, vld, vst, lane, with_lane, splat, tile_to_rows, rows_to_tile
from sim.engine.batch.smooth import kinematics_block, com_pos_block, crb_block, factor_m_block, com_vel_block, rne_block
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, com_vel
from sim.engine.crb import crb, factor_m
from sim.engine.rne import rne

# stage bits of SmoothBlocks.run / run_worlds
KINEMATICS, COM_POS, CRB, FACTOR_M, COM_VEL, RNE = 1, 2, 4, 8, 16, 32
ALL = 63
STAGES = (
    ("kinematics", KINEMATICS),
    ("com_pos", COM_POS),
    ("crb", CRB),
    ("factor_m", FACTOR_M),
    ("com_vel", COM_VEL),
    ("rne", RNE),
)

# Data fields the block stages read (INPUTS) and write (OUTPUTS), by name
INPUTS = ("qpos", "qvel", "mocap_pos", "mocap_quat")
OUTPUTS = (
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
)
# which outputs each stage writes (and the scratch rows rne uses: Data's scr_body6a / scr_body6b)
WRITES = {
    KINEMATICS: (
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
    ),
    COM_POS: ("subtree_com", "cinert", "cdof"),
    CRB: ("crb", "M"),
    FACTOR_M: ("qLD", "qLDiagInv"),
    COM_VEL: ("cvel", "cdof_dot"),
    RNE: ("qfrc_bias", "scr_body6a", "scr_body6b"),
}


@njit(cache=True)
def to_blocks(src, dst, nworld):
    """dst (nblock, n, LANES)[b, r, l] = src (nworld, n)[b*LANES + l, r]; lanes past nworld repeat the last
    world."""
    n = src.shape[1]
    for b in range(dst.shape[0]):
        for l in range(LANES):
            w = min(b * LANES + l, nworld - 1)
            for r in range(n):
                dst[b, r, l] = src[w, r]


@njit(cache=True)
def from_blocks(src, dst, nworld):
    """dst (nworld, n)[w, r] = src (nblock, n, LANES)[w // LANES, r, w % LANES]."""
    n = dst.shape[1]
    for w in range(nworld):
        b = w // LANES
        l = w - b * LANES
        for r in range(n):
            dst[w, r] = src[b, r, l]


@njit(cache=True)
def blocks_to_rows(srcs, dsts, nworld):
    """dsts[k] (nworld, n)[w, r] = srcs[k] (nblock, n, LANES)[w // LANES, r, w % LANES] for every field k:
    LANES x LANES transposes of full blocks (tile_to_rows), element by element for the rest."""
    for k in range(len(srcs)):
        S = srcs[k]
        D = dsts[k]
        n = D.shape[1]
        for b in range(S.shape[0]):
            w0 = b * LANES
            Sb = S[b]
            r = 0
            if w0 + LANES <= nworld:
                while r + LANES <= n:
                    tile_to_rows(Sb, r, D, w0 * n + r, n)
                    r += LANES
            for rr in range(r, n):
                v = vld(Sb, rr)
                for l in range(min(LANES, nworld - w0)):
                    D[w0 + l, rr] = lane(v, l)


@njit(cache=True)
def rows_to_blocks(srcs, dsts, nworld):
    """dsts[k] (nblock, n, LANES)[b, r, l] = srcs[k] (nworld, n)[b*LANES + l, r] for every field k, lanes past
    nworld repeating the last world: LANES x LANES transposes of full blocks (rows_to_tile), element by element
    for the rest."""
    for k in range(len(srcs)):
        D = srcs[k]
        S = dsts[k]
        n = D.shape[1]
        for b in range(S.shape[0]):
            w0 = b * LANES
            Sb = S[b]
            r = 0
            if w0 + LANES <= nworld:
                while r + LANES <= n:
                    rows_to_tile(D, w0 * n + r, n, Sb, r)
                    r += LANES
            for rr in range(r, n):
                v = splat(0.0)
                for l in range(LANES):
                    v = with_lane(v, l, D[min(w0 + l, nworld - 1), rr])
                vst(Sb, rr, v)


@njit(cache=True)
def run_blocks(
    m,
    nblock,
    stages,
    qpos,
    qvel,
    mocap_pos,
    mocap_quat,
    xpos,
    xquat,
    xmat,
    xanchor,
    xaxis,
    xipos,
    ximat,
    geom_xpos,
    geom_xmat,
    site_xpos,
    site_xmat,
    subtree_com,
    cinert,
    cdof,
    crb_,
    M,
    qLD,
    qLDiagInv,
    bad,
    cvel,
    cdof_dot,
    cacc,
    cfrc,
    qfrc_bias,
):
    """The stages in the bitmask `stages` on blocks 0..nblock-1, block by block (all stages of a block, then the
    next block)."""
    for b in range(nblock):
        if stages & KINEMATICS:
            kinematics_block(
                m,
                qpos[b],
                mocap_pos[b],
                mocap_quat[b],
                xpos[b],
                xquat[b],
                xmat[b],
                xanchor[b],
                xaxis[b],
                xipos[b],
                ximat[b],
                geom_xpos[b],
                geom_xmat[b],
                site_xpos[b],
                site_xmat[b],
            )
        if stages & COM_POS:
            com_pos_block(m, xipos[b], ximat[b], xmat[b], xanchor[b], xaxis[b], subtree_com[b], cinert[b], cdof[b])
        if stages & CRB:
            crb_block(m, cinert[b], cdof[b], crb_[b], M[b])
        if stages & FACTOR_M:
            factor_m_block(m, M[b], qLD[b], qLDiagInv[b], bad[b])
        if stages & COM_VEL:
            com_vel_block(m, qvel[b], cdof[b], cvel[b], cdof_dot[b])
        if stages & RNE:
            rne_block(m, qvel[b], cinert[b], cvel[b], cdof[b], cdof_dot[b], cacc[b], cfrc[b], qfrc_bias[b])


@njit(cache=True)
def run_worlds(m, d, nworld, stages):
    """The same stages with today's per-world kernels (sim/engine), world by world (all stages of a world, then
    the next world)."""
    for w in range(nworld):
        if stages & KINEMATICS:
            kinematics(m, d, w)
        if stages & COM_POS:
            com_pos(m, d, w)
        if stages & CRB:
            crb(m, d, w)
        if stages & FACTOR_M:
            factor_m(m, d, w)
        if stages & COM_VEL:
            com_vel(m, d, w)
        if stages & RNE:
            rne(m, d, w)


class SmoothBlocks:
    """World-minor copies of the smooth stages' fields for nworld worlds of model m (sim.Model)."""

    def __init__(self, m, nworld):
        from sim.api import model_struct

        self.m = m
        self.ms = model_struct(m)
        self.nworld = nworld
        self.nblock = (nworld + LANES - 1) // LANES
        rows = dict(
            qpos=m.nq,
            qvel=m.nv,
            mocap_pos=3 * m.nmocap,
            mocap_quat=4 * m.nmocap,
            xpos=3 * m.nbody,
            xquat=4 * m.nbody,
            xmat=9 * m.nbody,
            xanchor=3 * m.njnt,
            xaxis=3 * m.njnt,
            xipos=3 * m.nbody,
            ximat=9 * m.nbody,
            geom_xpos=3 * m.ngeom,
            geom_xmat=9 * m.ngeom,
            site_xpos=3 * m.nsite,
            site_xmat=9 * m.nsite,
            subtree_com=3 * m.nbody,
            cinert=10 * m.nbody,
            cdof=6 * m.nv,
            crb=10 * m.nbody,
            M=m.nC,
            qLD=m.nC,
            qLDiagInv=m.nv,
            bad=1,
            cvel=6 * m.nbody,
            cdof_dot=6 * m.nv,
            scr_body6a=6 * m.nbody,
            scr_body6b=6 * m.nbody,
            qfrc_bias=m.nv,
        )
        self.rows = rows
        self.a = {k: np.zeros((self.nblock, max(n, 1), LANES)) for k, n in rows.items()}
        self.fields = OUTPUTS

    def _args(self):
        a = self.a
        return (
            a["qpos"],
            a["qvel"],
            a["mocap_pos"],
            a["mocap_quat"],
            a["xpos"],
            a["xquat"],
            a["xmat"],
            a["xanchor"],
            a["xaxis"],
            a["xipos"],
            a["ximat"],
            a["geom_xpos"],
            a["geom_xmat"],
            a["site_xpos"],
            a["site_xmat"],
            a["subtree_com"],
            a["cinert"],
            a["cdof"],
            a["crb"],
            a["M"],
            a["qLD"],
            a["qLDiagInv"],
            a["bad"],
            a["cvel"],
            a["cdof_dot"],
            a["scr_body6a"],
            a["scr_body6b"],
            a["qfrc_bias"],
        )

    def run(self, stages=ALL):
        """Run the stages (bitmask) on every block."""
        run_blocks(self.ms, self.nblock, stages, *self._args())

    def rows_of(self, d, name):
        """Data field `name` of batch d as (nworld, n) rows (a view)."""
        x = getattr(d, name) if hasattr(d, name) else d._arrays[name]
        r = x.reshape(x.shape[0], -1)
        if r.size and not np.shares_memory(r, x):
            raise ValueError("Data field %s is not contiguous" % name)
        return r

    def load(self, d, names=INPUTS):
        """Copy fields of batch Data d into the blocks."""
        names = [k for k in names if self.rows[k]]
        rows_to_blocks(tuple(self.rows_of(d, k) for k in names), tuple(self.a[k] for k in names), self.nworld)

    def store(self, d, names):
        """Copy fields from the blocks into batch Data d."""
        names = [k for k in names if self.rows[k]]
        blocks_to_rows(tuple(self.a[k] for k in names), tuple(self.rows_of(d, k) for k in names), self.nworld)

    def inertia_warnings(self):
        """Per world, the row factor_m raised to mjMINVAL (-1 when none), as factor_i returns it."""
        return self.a["bad"][:, 0, :].reshape(-1)[: self.nworld].astype(np.int64)
