"""Fields of the Task struct: an environment step described as data and run inside the physics entry.

A task program (built in Python by envs/, run by sim/engine/task.py) reads scalar *sources*: a Data array and a flat
index into its per-world row (field codes FIELDS below), and from them fills per-world outputs: the observation
(one op per element), reward terms, health checks, termination and truncation. The same compiled entry serves
`sim.step` (an empty task, enabled = 0) and every environment, single or batched, so no task costs a compile.

Program (no world axis):
  obs_src, obs_src2, obs_op (nobs,) int; obs_lo, obs_hi (nobs,): element = op(x[src] - x[src2]) clipped
  term_kind, term_el0, term_nel, term_flags (nterm,) int; term_w, term_sign, term_rlo, term_rhi (nterm,)
  el_src, el_src2 (nel,) int; el_coef, el_off, el_lo, el_hi (nel,): term elements v = clip(x - x2, lo, hi) - off
  chk_src, chk_op (nchk,) int; chk_lo, chk_hi (nchk,): health checks (all must pass)
  src (nsrc, 2) int: (field code, flat index in the per-world row)
  fprm (4,): dt (the env step's duration, for velocity terms)
Per world (leading world axis): action (nu,), obs / final_obs (nobs,), terms / reset_terms (the terms flagged
  FLAG_RESET, evaluated by a reset) / before (nterm,), reward,
  status (9,) int: terminated, truncated, diverged, healthy, elapsed, reset_mask, final (same-step reset done),
  bad action, action given as float32; reset_qpos (nq,), reset_qvel (nv,), reset_act (na,), reset_ctrl (nu,): the state the next reset of
  that world starts from (drawn by the env beforehand).
"""

# Data arrays a source can read (code = index); 'action' is the task's own action buffer
FIELDS = ('qpos', 'qvel', 'act', 'ctrl', 'qacc', 'xpos', 'xquat', 'xipos', 'xmat', 'site_xpos', 'geom_xpos',
          'subtree_com', 'cinert', 'cvel', 'cacc', 'cfrc_ext', 'cfrc_int', 'qfrc_actuator', 'qfrc_constraint',
          'qfrc_applied', 'actuator_force', 'actuator_length', 'actuator_velocity', 'ten_length', 'time',
          'action', 'sensordata')
CODE = {n: i for i, n in enumerate(FIELDS)}

# observation element ops; term kinds and flags; health check ops; status columns
OBS_VALUE, OBS_SIN, OBS_COS = 0, 1, 2
TERM_SUM, TERM_SQ, TERM_NORM, TERM_DELTA, TERM_HEALTHY = 0, 1, 2, 3, 4
# term flags: counts in the reward; evaluated before the physics steps; evaluated at reset; a sum of squares of
# action elements computed in float32 (numpy's pairwise order, Gymnasium's np.sum(np.square(action))) when the
# world's action came as float32 (status ST_F32)
FLAG_REWARD, FLAG_PRE, FLAG_RESET, FLAG_F32 = 1, 2, 4, 8
CHK_OPEN, CHK_CLOSED, CHK_FINITE, CHK_OBS_FINITE = 0, 1, 2, 3
ST_TERMINATED, ST_TRUNCATED, ST_DIVERGED, ST_HEALTHY, ST_ELAPSED, ST_RESET, ST_FINAL, ST_BADACTION, ST_F32 = range(9)
NSTATUS = 9

TASK_SCALARS = ['enabled', 'nobs', 'nterm', 'nchk', 'same_step', 'rne_post', 'max_steps', 'terminate']
TASK_ARRAYS = [
    ('src', 2, 'i'), ('obs_src', 1, 'i'), ('obs_src2', 1, 'i'), ('obs_op', 1, 'i'), ('obs_lo', 1, 'f'),
    ('obs_hi', 1, 'f'), ('term_kind', 1, 'i'), ('term_el0', 1, 'i'), ('term_nel', 1, 'i'), ('term_flags', 1, 'i'),
    ('term_w', 1, 'f'), ('term_sign', 1, 'f'), ('term_rlo', 1, 'f'), ('term_rhi', 1, 'f'), ('el_src', 1, 'i'),
    ('el_src2', 1, 'i'), ('el_coef', 1, 'f'), ('el_off', 1, 'f'), ('el_lo', 1, 'f'), ('el_hi', 1, 'f'),
    ('chk_src', 1, 'i'), ('chk_op', 1, 'i'), ('chk_lo', 1, 'f'), ('chk_hi', 1, 'f'), ('fprm', 1, 'f'),
    ('action', 2, 'f'), ('obs', 2, 'f'), ('final_obs', 2, 'f'), ('terms', 2, 'f'), ('reset_terms', 2, 'f'),
    ('before', 2, 'f'),
    ('reward', 1, 'f'), ('status', 2, 'i'), ('reset_qpos', 2, 'f'), ('reset_qvel', 2, 'f'), ('reset_act', 2, 'f'),
    ('reset_ctrl', 2, 'f'),
]
