"""MuJoCo 3.17's enum values and limits, and numjoco's layout constants (the packed opt array, buffer bounds, the
task program's codes): the one home of constants, a module with no imports."""

# opt array layout (float64); integer flags are stored exactly as floats
OPT_TIMESTEP, OPT_GRAVITY, OPT_WIND, OPT_DENSITY, OPT_VISCOSITY = 0, 1, 4, 7, 8
OPT_INTEGRATOR, OPT_DISABLE, OPT_ENABLE, OPT_DISABLEACT = 9, 10, 11, 12
OPT_IMPRATIO, OPT_TOLERANCE, OPT_LS_TOLERANCE, OPT_NOSLIP_TOLERANCE, OPT_CCD_TOLERANCE = 13, 14, 15, 16, 17
OPT_O_MARGIN, OPT_O_SOLREF, OPT_O_SOLIMP, OPT_O_FRICTION = 18, 19, 21, 26  # widths 1, 2, 5, 5
OPT_CONE, OPT_JACOBIAN, OPT_SOLVER, OPT_ITERATIONS, OPT_LS_ITERATIONS = 31, 32, 33, 34, 35
OPT_NOSLIP_ITERATIONS, OPT_CCD_ITERATIONS, OPT_MAGNETIC = 36, 37, 38  # magnetic width 3
OPT_SIZE = 41

# MuJoCo enum values (mujoco 3.17)
JNT_FREE, JNT_BALL, JNT_SLIDE, JNT_HINGE = 0, 1, 2, 3
DSBL_CONSTRAINT, DSBL_EQUALITY, DSBL_FRICTIONLOSS, DSBL_LIMIT, DSBL_CONTACT = 1, 2, 4, 8, 16
DSBL_SPRING, DSBL_DAMPER, DSBL_GRAVITY, DSBL_CLAMPCTRL, DSBL_WARMSTART = 32, 64, 128, 256, 512
DSBL_FILTERPARENT, DSBL_ACTUATION, DSBL_REFSAFE, DSBL_SENSOR, DSBL_MIDPHASE = 1024, 2048, 4096, 8192, 16384
DSBL_EULERDAMP, DSBL_AUTORESET, DSBL_NATIVECCD, DSBL_ISLAND, DSBL_MULTICCD = 32768, 65536, 131072, 262144, 524288
ENBL_OVERRIDE, ENBL_ENERGY, ENBL_FWDINV, ENBL_INVDISCRETE, ENBL_SLEEP, ENBL_DIAGEXACT = 1, 2, 4, 8, 16, 32
INT_EULER, INT_RK4, INT_IMPLICIT, INT_IMPLICITFAST = 0, 1, 2, 3
TRN_JOINT, TRN_JOINTINPARENT, TRN_SLIDERCRANK, TRN_TENDON, TRN_SITE, TRN_BODY = 0, 1, 2, 3, 4, 5
DYN_NONE, DYN_INTEGRATOR, DYN_FILTER, DYN_FILTEREXACT, DYN_MUSCLE, DYN_DCMOTOR, DYN_USER = 0, 1, 2, 3, 4, 5, 7
GAIN_FIXED, GAIN_AFFINE, GAIN_MUSCLE, GAIN_DCMOTOR, GAIN_USER = 0, 1, 2, 3, 6
BIAS_NONE, BIAS_AFFINE, BIAS_MUSCLE, BIAS_DCMOTOR, BIAS_USER = 0, 1, 2, 3, 5
INPUT_POS, INPUT_VEL, INPUT_FF, INPUT_VOLTAGE = 1, 2, 4, 8  # mjtCtrlInput bits
WRAP_NONE, WRAP_JOINT, WRAP_PULLEY, WRAP_SITE, WRAP_SPHERE, WRAP_CYLINDER = 0, 1, 2, 3, 4, 5
WARN_INERTIA, WARN_CONTACTFULL, WARN_CNSTRFULL = 0, 1, 2
WARN_BADQPOS, WARN_BADQVEL, WARN_BADQACC, WARN_BADCTRL, NWARNING = 3, 4, 5, 6, 7
GEOM_PLANE, GEOM_HFIELD, GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID = 0, 1, 2, 3, 4
GEOM_CYLINDER, GEOM_BOX, GEOM_MESH, NGEOMTYPES = 5, 6, 7, 8
EQ_CONNECT, EQ_WELD, EQ_JOINT, EQ_TENDON = 0, 1, 2, 3
CNSTR_EQUALITY, CNSTR_FRICTION_DOF, CNSTR_FRICTION_TENDON, CNSTR_LIMIT_JOINT = 0, 1, 2, 3
CNSTR_LIMIT_TENDON, CNSTR_CONTACT_FRICTIONLESS, CNSTR_CONTACT_PYRAMIDAL, CNSTR_CONTACT_ELLIPTIC = 4, 5, 6, 7
CNSTRSTATE_SATISFIED, CNSTRSTATE_QUADRATIC, CNSTRSTATE_LINEARNEG = 0, 1, 2
CNSTRSTATE_LINEARPOS, CNSTRSTATE_CONE = 3, 4
CONE_PYRAMIDAL, CONE_ELLIPTIC = 0, 1
SOL_PGS, SOL_CG, SOL_NEWTON = 0, 1, 2
# mjtSensor
(
    SENS_TOUCH,
    SENS_ACCELEROMETER,
    SENS_VELOCIMETER,
    SENS_GYRO,
    SENS_FORCE,
    SENS_TORQUE,
    SENS_MAGNETOMETER,
    SENS_RANGEFINDER,
    SENS_CAMPROJECTION,
    SENS_JOINTPOS,
    SENS_JOINTVEL,
    SENS_TENDONPOS,
    SENS_TENDONVEL,
    SENS_ACTUATORPOS,
    SENS_ACTUATORVEL,
    SENS_ACTUATORFRC,
    SENS_JOINTACTFRC,
    SENS_TENDONACTFRC,
    SENS_BALLQUAT,
    SENS_BALLANGVEL,
    SENS_JOINTLIMITPOS,
    SENS_JOINTLIMITVEL,
    SENS_JOINTLIMITFRC,
    SENS_TENDONLIMITPOS,
    SENS_TENDONLIMITVEL,
    SENS_TENDONLIMITFRC,
    SENS_FRAMEPOS,
    SENS_FRAMEQUAT,
    SENS_FRAMEXAXIS,
    SENS_FRAMEYAXIS,
    SENS_FRAMEZAXIS,
    SENS_FRAMELINVEL,
    SENS_FRAMEANGVEL,
    SENS_FRAMELINACC,
    SENS_FRAMEANGACC,
    SENS_SUBTREECOM,
    SENS_SUBTREELINVEL,
    SENS_SUBTREEANGMOM,
    SENS_INSIDESITE,
    SENS_GEOMDIST,
    SENS_GEOMNORMAL,
    SENS_GEOMFROMTO,
    SENS_CONTACT,
    SENS_E_POTENTIAL,
    SENS_E_KINETIC,
    SENS_CLOCK,
    SENS_TACTILE,
    SENS_PLUGIN,
    SENS_USER,
) = range(49)
RAYDATA_NORMAL = 4  # bit of the rangefinder's "normal" data field (mjtRayDataField)

# MuJoCo's limits
MINVAL = 1e-15  # mjMINVAL
MAXVAL = 1e10  # mjMAXVAL
NGROUP = 6  # mjNGROUP
MAXTREEDEPTH = 50  # mjMAXTREEDEPTH (BVH traversal stack)
MAXCONPAIR = 50  # most contacts one narrowphase call may return (mjMAXCONPAIR)
NISLAND = 20  # mjNISLAND: islands with solver statistics
MJ_NSOLVER = 200  # mjNSOLVER: solver statistics entries per island
NSOLVER = 4000  # length of d.solver_* (MJ_NSOLVER * NISLAND)

# numjoco's buffer bounds
BOXBOX_MAXVERT = 12  # clipped polygon capacity of the box-box collider (sim/engine/collision/box.py)
AR_CAP = 1500  # largest njmax for which the dual solvers' dense AR (njmax^2 float64 per world) is allocated
AR_SMALL = 512  # dense AR rows kept when njmax > AR_CAP for a dense-mode model that uses a dual solver (PGS or
# noslip) when its Data is made; problems with more rows use AR rows on the fly (solver.py)
SLV_NV_ROWS = 21  # solver dof-vector scratch rows: Ma, Mv, grad, Mgrad, search, gradold, Mgradold, graddif,
# Mgraddif, tmp, island qfrc_smooth / qacc_smooth / qacc / qfrc_constraint, Cholesky update
# vector, 6 rows L_c' J_c (sim/engine/solver.py)
SLV_EFC_ROWS = 10  # solver efc-vector scratch rows: Jaref, Jv, 1/diag(AR) (PGS), force_prev, force_momentum,
# island D / R / frictionloss / aref / force
PGS_ORDER_CAP = 4096  # ints of the PGS visiting-order table per world (models that use a dual solver), see sol_pgs
SLV_INT_ROWS = 5  # solver int scratch rows: old states, PGS block starts, island type / id / state

# task program (sim/engine/task.py): observation element ops; term kinds and flags; health check ops; status columns
OBS_VALUE, OBS_SIN, OBS_COS = 0, 1, 2
TERM_SUM, TERM_SQ, TERM_NORM, TERM_DELTA, TERM_HEALTHY = 0, 1, 2, 3, 4
# term flags: counts in the reward; evaluated before the physics steps; evaluated at reset; a sum of squares of
# action elements computed in float32 (numpy's pairwise order, Gymnasium's np.sum(np.square(action))) when the
# world's action came as float32 (status ST_F32)
FLAG_REWARD, FLAG_PRE, FLAG_RESET, FLAG_F32 = 1, 2, 4, 8
CHK_OPEN, CHK_CLOSED, CHK_FINITE, CHK_OBS_FINITE = 0, 1, 2, 3
ST_TERMINATED, ST_TRUNCATED, ST_DIVERGED, ST_HEALTHY, ST_ELAPSED, ST_RESET, ST_FINAL, ST_BADACTION, ST_F32 = range(9)
NSTATUS = 9
# expression program ops (sim/engine/task.py evaluate; instruction (op, a, b, c), sim/types.py); the sigmoids of
# OP_TOL (dm_control.utils.rewards.tolerance), kind = index; a world's mode for the next call (Task.mode)
(OP_LOAD, OP_CONST, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_SIN, OP_COS, OP_LOG1P, OP_ARCSINH) = range(11)
(OP_TANH, OP_SQRT, OP_ABS, OP_EXP, OP_MIN, OP_MAX, OP_LE, OP_LT, OP_WHERE, OP_TOL) = range(11, 21)
SIGMOIDS = ("gaussian", "hyperbolic", "long_tail", "reciprocal", "cosine", "linear", "quadratic", "tanh_squared")
MODE_STEP, MODE_SKIP, MODE_OBSERVE = 0, 1, 2
