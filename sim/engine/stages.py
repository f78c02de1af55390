"""Stage sequences that mj_forward (sim/engine/forward.py) and mj_inverse (sim/engine/inverse.py) share: the
smooth position computations up to the constraint rows (the start of mj_fwdPosition and mj_invPosition), and the
velocity stage (mj_fwdVelocity; mj_invVelocity is the same)."""

from sim.jit import njit

from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, com_vel
from sim.engine.tendon import tendon_if, tendon_velocity_if, tendon_bias_if
from sim.engine.transmission import actuator_velocity
from sim.engine.crb import crb, tendon_armature, factor_m
from sim.engine.rne import rne
from sim.engine.constraint import reference_constraint
from sim.engine.parts import collision, make_constraint, passive
from sim.engine.sensor import sensor_vel_stage


@njit
def smooth_core(m, d, w, F):
    """kinematics, com_pos, tendon, crb, tendon armature and factor_m of world w."""
    kinematics(m, d, w)
    com_pos(m, d, w)
    tendon_if(F, m, d, w)
    crb(m, d, w)
    tendon_armature(m, d, w)
    factor_m(m, d, w)


@njit
def position_core(m, d, w, F):
    """smooth_core, then collision and make_constraint of world w."""
    smooth_core(m, d, w, F)
    collision(m, d, w, F)
    make_constraint(m, d, w, F)


@njit
def fwd_velocity(m, d, w, F, skipsensor):
    """Velocity stage: ten/actuator velocity, com_vel, passive, rne bias (mj_fwdVelocity), then velocity sensors
    and kinetic energy (mj_forwardSkip)."""
    tendon_velocity_if(F, m, d, w)
    actuator_velocity(m, d, w)
    com_vel(m, d, w)
    passive(m, d, w, F)
    reference_constraint(m, d, w, F)
    rne(m, d, w)
    tendon_bias_if(F, m, d, w)
    sensor_vel_stage(m, d, w, F, skipsensor)
