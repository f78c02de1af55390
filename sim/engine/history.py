"""History buffers of delayed actuators (engine_util_misc.c's mju_history*, mj_readCtrl, mj_advance's buffer update,
mj_resetData's initialisation).

A buffer of n samples of dimension dim is a slice of d.history laid out as MuJoCo's: [user, cursor, times (n),
values (n * dim)], a ring whose cursor is the physical index of the newest sample: the actuators' (dim 1, read by
mj_readCtrl) then the sensors' (sim/engine/sensor.py reads and fills them).
"""

import math

from sim.jit import njit

from sim.constants import MINVAL, OPT_TIMESTEP


@njit(cache=True)
def _phys(cursor, n, logical):
    """Physical index of logical sample `logical` (0 oldest, n-1 newest) (historyPhysicalIndex)."""
    return (cursor + 1 + logical) % n


@njit(cache=True)
def history_find_index(buf, n, cursor, t):
    """Smallest logical i with times[i] >= t; 0 if t <= oldest, n if t > newest (historyFindIndex)."""
    if t <= buf[2 + _phys(cursor, n, 0)]:
        return 0
    if t > buf[2 + _phys(cursor, n, n - 1)]:
        return n
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if buf[2 + _phys(cursor, n, mid)] < t:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True)
def history_insert(buf, n, dim, t):
    """Offset into buf of the value slot (dim) for a sample at time t, inserted in time order, the oldest sample
    dropped (mju_historyInsert)."""
    cursor = int(buf[1])
    i = history_find_index(buf, n, cursor, t)
    if i < n:
        p = _phys(cursor, n, i)
        if abs(t - buf[2 + p]) < MINVAL:
            return 2 + n + p * dim
    if i == 0:
        p = _phys(cursor, n, 0)
        buf[2 + p] = t
        return 2 + n + p * dim
    if i == n:
        cursor = (cursor + 1) % n
        buf[1] = cursor
        buf[2 + cursor] = t
        return 2 + n + cursor * dim
    # out-of-order: shift logical samples 1 .. i-1 one place older (dropping the oldest), insert at i-1
    for j in range(i - 1):
        src = _phys(cursor, n, j + 1)
        dst = _phys(cursor, n, j)
        buf[2 + dst] = buf[2 + src]
        for k in range(dim):
            buf[2 + n + dst * dim + k] = buf[2 + n + src * dim + k]
    p = _phys(cursor, n, i - 1)
    buf[2 + p] = t
    return 2 + n + p * dim


@njit(cache=True)
def history_locate(buf, n, t):
    """Where time t falls in a buffer (mju_historyRead's search): (i, lo, hi, alpha) with physical samples lo, hi
    and logical index i of hi; i < 0: the value is sample lo itself (held before the oldest or after the newest, an
    exact time match), alpha unused."""
    cursor = int(buf[1])
    po = _phys(cursor, n, 0)
    pn = _phys(cursor, n, n - 1)
    if t <= buf[2 + po] + MINVAL:
        return -1, po, po, 0.0
    if t >= buf[2 + pn] - MINVAL:
        return -1, pn, pn, 0.0
    i = history_find_index(buf, n, cursor, t)
    hi = _phys(cursor, n, i)
    if abs(t - buf[2 + hi]) < MINVAL:
        return -1, hi, hi, 0.0
    lo = _phys(cursor, n, i - 1)
    return i, lo, hi, (t - buf[2 + lo]) / (buf[2 + hi] - buf[2 + lo])


@njit(cache=True)
def history_value(buf, n, dim, i, lo, hi, alpha, interp, k):
    """Component k of the value at a located time (history_locate): held, linear or cubic Hermite with
    Catmull-Rom slopes, 0 at the ends (mju_historyRead)."""
    v = 2 + n
    if i < 0 or interp == 0:
        return buf[v + lo * dim + k]
    if interp == 1:
        return buf[v + lo * dim + k] + alpha * (buf[v + hi * dim + k] - buf[v + lo * dim + k])
    dt = buf[2 + hi] - buf[2 + lo]
    a2 = alpha * alpha
    a3 = a2 * alpha
    h00 = 2 * a3 - 3 * a2 + 1
    h10 = a3 - 2 * a2 + alpha
    h01 = -2 * a3 + 3 * a2
    h11 = a3 - a2
    cursor = int(buf[1])
    m_lo = 0.0
    if i > 1:
        pp = _phys(cursor, n, i - 2)
        m_lo = (buf[v + hi * dim + k] - buf[v + pp * dim + k]) / (buf[2 + hi] - buf[2 + pp])
    m_hi = 0.0
    if i < n - 1:
        pq = _phys(cursor, n, i + 1)
        m_hi = (buf[v + pq * dim + k] - buf[v + lo * dim + k]) / (buf[2 + pq] - buf[2 + lo])
    return h00 * buf[v + lo * dim + k] + h10 * dt * m_lo + h01 * buf[v + hi * dim + k] + h11 * dt * m_hi


@njit(cache=True)
def history_read1(buf, n, t, interp):
    """Scalar value of a dim-1 buffer at time t (mju_historyRead)."""
    i, lo, hi, alpha = history_locate(buf, n, t)
    return history_value(buf, n, 1, i, lo, hi, alpha, interp, 0)


@njit(cache=True)
def history_read(buf, n, dim, t, interp, out):
    """The dim values of a buffer at time t into out (dim,) (mju_historyRead)."""
    i, lo, hi, alpha = history_locate(buf, n, t)
    for k in range(dim):
        out[k] = history_value(buf, n, dim, i, lo, hi, alpha, interp, k)


@njit(cache=True)
def read_delayed_ctrl(m, d, w, ctrl):
    """ctrl[i] (nu,) of each delayed actuator = its history read at time - delay (mj_fwdActuation, mj_readCtrl)."""
    hist = d.history[w]
    t = d.time[w]
    for i in range(m.nu):
        if m.actuator_delay[i] == 0:
            continue
        n = m.actuator_history[i, 0]
        if n <= 0:
            ctrl[i] = d.ctrl[w, i]
            continue
        adr = m.actuator_historyadr[i]
        ctrl[i] = history_read1(hist[adr : adr + 2 + 2 * n], n, t - m.actuator_delay[i], m.actuator_history[i, 1])


@njit(cache=True)
def advance_history(m, d, w):
    """Insert each buffered actuator's ctrl at the current time (mj_advance's ctrl history update)."""
    hist = d.history[w]
    t = d.time[w]
    for i in range(m.nu):
        n = m.actuator_history[i, 0]
        if n <= 0:
            continue
        adr = m.actuator_historyadr[i]
        buf = hist[adr : adr + 2 + 2 * n]
        buf[history_insert(buf, n, 1, t)] = d.ctrl[w, i]


@njit(cache=True)
def reset_history(m, hist):
    """Buffers as mj_resetData leaves them: cursor n-1, values 0; actuators' and plain sensors' times -n dt .. -dt;
    a sensor sampled every `period` (sensor_interval): times on the dt grid at its ticks before phase (or 0), the
    last tick time in the user slot."""
    dt = m.opt[OPT_TIMESTEP]
    for i in range(m.nu):
        n = m.actuator_history[i, 0]
        if n <= 0:
            continue
        adr = m.actuator_historyadr[i]
        hist[adr] = 0.0
        hist[adr + 1] = n - 1
        for j in range(n):
            hist[adr + 2 + j] = -(n - j) * dt
            hist[adr + 2 + n + j] = 0.0
    for i in range(m.nsensor):
        n = m.sensor_history[i, 0]
        if n <= 0:
            continue
        adr = m.sensor_historyadr[i]
        period = m.sensor_interval[i, 0]
        phase = m.sensor_interval[i, 1]
        t0 = -period if phase == 0 else phase
        hist[adr] = t0 if period > 0 else -dt
        hist[adr + 1] = n - 1
        for j in range(n):
            if period > 0:
                hist[adr + 2 + j] = math.ceil((t0 - (n - 1 - j) * period) / dt) * dt
            else:
                hist[adr + 2 + j] = -(n - j) * dt
        for j in range(n * m.sensor_dim[i]):
            hist[adr + 2 + n + j] = 0.0
