"""Rendering benchmark: sim.Renderer (numba ray caster, no OpenGL) side by side with mujoco.Renderer.

Run: python benchmarks/bench_render.py [--quick] [--compare] [--stages]

Prints markdown tables (frames/s; each frame = update_scene + render, as an environment's render() does):
  * single images 480x480 rgb with the default look (shadows, reflection, skybox) on Hopper and Humanoid,
    tracking and free camera, 1 and 2 threads, and depth / segmentation; env.render() of numjoco/Hopper-v0 and
    Humanoid-v0 (v5's default camera) against Gymnasium's Hopper-v5 / Humanoid-v5 env.render();
  * batched 64x64 frames (256 worlds of Hopper and HalfCheetah in one call), frames/s with 1 and 2 threads
    (per thread: divide by the thread count);
  * mujoco.Renderer in the same process where an OpenGL context can be made without a display.  On a headless
    Linux machine that is OSMesa (software, llvmpipe):  apt-get install -y libosmesa6  (the benchmark sets
    MUJOCO_GL=osmesa unless MUJOCO_GL is set, and LP_NUM_THREADS=1 so llvmpipe uses one thread like the
    single-thread column; export LP_NUM_THREADS yourself to change that).  Without it that column says
    "n/a" and everything else still runs.
  --compare also writes side-by-side images (ours | MuJoCo's) to benchmarks/out/ and prints their mean
  absolute difference.
  --stages prints where a Hopper 480x480 rgb frame's time goes (one thread, CPU time per render): the full look,
  then with shadows, reflection, skybox / haze or textures off, depth and segmentation; the differences are the
  cost of each stage.  --camera C picks the camera (default "track"; -1 is the free camera).  Per compiled
  function: benchmarks/profile_render.py.
Single-thread figures also give frames per CPU-second (process time), which is less sensitive to a busy machine;
the load average is printed before and after.
"""

import os
import sys
import time

os.environ.setdefault("MUJOCO_GL", "osmesa")
os.environ.setdefault("LP_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
import numba  # noqa: E402

import sim  # noqa: E402


def _gym(name):
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", name)


def _state(m, nworld=None, seed=0):
    d = sim.Data(m, nworld=nworld)
    rng = np.random.default_rng(seed)
    shape = (m.nq,) if nworld is None else (nworld, m.nq)
    q = np.array(m.qpos0) + 0.05 * rng.standard_normal(shape)
    d.qpos = q
    sim.forward(m, d)
    return d


def _rate(fn, nframe_per_call, seconds):
    """(frames/s wall, frames per CPU-second) of fn over about `seconds`."""
    fn()
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds or n < 3:
        fn()
        n += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return n * nframe_per_call / wall, n * nframe_per_call / cpu


def ours_single(name, camera, mode, nthread, seconds, size=480):
    numba.set_num_threads(nthread)
    m = sim.load_model(_gym(name))
    d = _state(m)
    r = sim.Renderer(m, size, size)
    if mode == "depth":
        r.enable_depth_rendering()
    elif mode == "seg":
        r.enable_segmentation_rendering()

    def frame():
        r.update_scene(d, camera=camera)
        r.render()

    return _rate(frame, 1, seconds)


def _env_rate(env, seconds):
    """frames/s of env.render() after a reset and a few random steps."""
    env.reset(seed=0)
    for _ in range(20):
        env.step(env.action_space.sample())
    out = _rate(env.render, 1, seconds)
    env.close()
    return out


def ours_env(task, nthread, seconds, size=480):
    """numjoco/<task>-v0's env.render() (Gymnasium v5's default camera), rgb_array at size x size."""
    import gymnasium

    import envs  # noqa: F401  (registers numjoco/*)

    numba.set_num_threads(nthread)
    return _env_rate(gymnasium.make(f"numjoco/{task}-v0", render_mode="rgb_array", width=size, height=size), seconds)


def gym_env(task, seconds, size=480):
    """Gymnasium's <task>-v5 env.render() (mujoco.Renderer), or None without an OpenGL context."""
    if _MJ_ERROR:
        return None
    import gymnasium

    try:
        env = gymnasium.make(f"{task}-v5", render_mode="rgb_array", width=size, height=size)
        return _env_rate(env, seconds)
    except Exception as e:  # no OSMesa / EGL / display
        _MJ_ERROR.append(f"{type(e).__name__}: {e}")
        return None


def ours_batch(name, camera, nworld, nthread, seconds, mode="rgb", size=64):
    numba.set_num_threads(nthread)
    m = sim.load_model(_gym(name))
    d = _state(m, nworld)
    r = sim.Renderer(m, size, size)
    if mode == "depth":
        r.enable_depth_rendering()
    out = np.empty(
        (nworld, size, size, 3) if mode == "rgb" else (nworld, size, size), np.uint8 if mode == "rgb" else np.float32
    )

    def frame():
        r.update_scene(d, camera=camera)
        r.render(out=out)

    return _rate(frame, nworld, seconds)


def stages(name="hopper.xml", size=480, seconds=1.0, camera="track"):
    """CPU ms per render (update_scene apart) of one frame with the look's stages switched off one at a time."""
    numba.set_num_threads(1)
    m = sim.load_model(_gym(name))
    d = _state(m)
    r = sim.Renderer(m, size, size)
    opt = sim.render.SceneOption()
    print(
        f"\n| {name[:-4]} {size}x{size}, camera {camera}, 1 thread | CPU ms per render | frames/CPU-s (with update_scene) |"
    )
    print("|---|---|---|")
    upd = 1e3 / _rate(lambda: r.update_scene(d, camera=camera), 1, seconds)[1]
    print(f"| update_scene alone | {upd:.3f} | |")
    for label, flags, tex, mode in (
        ("full look", {}, True, "rgb"),
        ("shadows off", {0: 0}, True, "rgb"),
        ("reflection off", {2: 0}, True, "rgb"),
        ("skybox + haze off", {4: 0, 6: 0}, True, "rgb"),
        ("textures off", {}, False, "rgb"),
        ("all four off", {0: 0, 2: 0, 4: 0, 6: 0}, False, "rgb"),
        ("depth", {}, True, "depth"),
        ("segmentation", {}, True, "seg"),
    ):
        for f in (0, 2, 4, 6):
            r.scene.flags[f] = flags.get(f, 1)
        opt.flags[opt.VIS_TEXTURE] = tex
        r.disable_depth_rendering()
        r.disable_segmentation_rendering()
        if mode == "depth":
            r.enable_depth_rendering()
        elif mode == "seg":
            r.enable_segmentation_rendering()
        r.update_scene(d, camera=camera, scene_option=opt)
        ms = 1e3 / _rate(r.render, 1, seconds)[1]
        print(f"| {label} | {ms:.2f} | {1e3 / (ms + upd):.1f} |")


_MJ_ERROR = []


def mujoco_renderer(name, size):
    """(mujoco model, data, renderer) or None when no OpenGL context can be made."""
    if _MJ_ERROR:
        return None
    try:
        import mujoco

        mm = mujoco.MjModel.from_xml_path(_gym(name))
        md = mujoco.MjData(mm)
        rng = np.random.default_rng(0)
        md.qpos[:] = mm.qpos0 + 0.05 * rng.standard_normal(mm.nq)
        mujoco.mj_forward(mm, md)
        mm.vis.global_.offwidth = max(size, mm.vis.global_.offwidth)
        mm.vis.global_.offheight = max(size, mm.vis.global_.offheight)
        return mm, md, mujoco.Renderer(mm, size, size)
    except Exception as e:  # no OSMesa / EGL / display
        _MJ_ERROR.append(f"{type(e).__name__}: {e}")
        return None


def mujoco_single(name, camera, mode, seconds, size=480):
    res = mujoco_renderer(name, size)
    if res is None:
        return None
    mm, md, r = res
    if mode == "depth":
        r.enable_depth_rendering()
    elif mode == "seg":
        r.enable_segmentation_rendering()

    def frame():
        r.update_scene(md, camera=camera)
        r.render()

    out = _rate(frame, 1, seconds)
    r.close()
    return out


def _fmt(x):
    return "n/a" if x is None else f"{x[0]:,.1f}"


def compare(outdir):
    """Side-by-side images ours | MuJoCo for a few scenes, with their mean absolute difference."""
    import mujoco

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from test_render_look import write_png

    os.makedirs(outdir, exist_ok=True)
    scenes = [
        ("hopper.xml", "track", 480),
        ("humanoid.xml", "track", 480),
        ("half_cheetah.xml", "track", 64),
        ("ant.xml", "track", 240),
        (os.path.join(ROOT, "tests", "models", "render_scene.xml"), "fixed", 480),
    ]
    print("\n| scene | size | mean abs diff ours vs mujoco.Renderer (of 255) | image |")
    print("|---|---|---|---|")
    for name, cam, size in scenes:
        path = name if os.path.isabs(name) else _gym(name)
        m = sim.load_model(path)
        d = _state(m)
        r = sim.Renderer(m, size, size)
        r.update_scene(d, camera=cam)
        ours = r.render()
        mm = mujoco.MjModel.from_xml_path(path)
        md = mujoco.MjData(mm)
        md.qpos[:] = d.qpos
        mujoco.mj_forward(mm, md)
        mm.vis.global_.offwidth = max(size, mm.vis.global_.offwidth)
        mm.vis.global_.offheight = max(size, mm.vis.global_.offheight)
        with mujoco.Renderer(mm, size, size) as mr:
            mr.update_scene(md, camera=cam)
            theirs = mr.render()
        diff = np.abs(ours.astype(int) - theirs.astype(int)).mean()
        fname = os.path.join(outdir, os.path.splitext(os.path.basename(name))[0] + f"_{size}.png")
        write_png(fname, np.concatenate([ours, theirs], axis=1))
        print(f"| {os.path.basename(name)} ({cam}) | {size} | {diff:.1f} | {os.path.relpath(fname, ROOT)} |")


def main():
    quick = "--quick" in sys.argv
    sec = 1.0 if quick else 3.0
    print(f"load average before: {os.getloadavg()}  (2-core machine; figures under load are lower)")
    if "--stages" in sys.argv:
        cam = sys.argv[sys.argv.index("--camera") + 1] if "--camera" in sys.argv else "track"
        stages(seconds=sec, camera=int(cam) if cam.lstrip("-").isdigit() else cam)
        print(f"\nload average after: {os.getloadavg()}")
        return
    print()
    print(
        "| 480x480, default look (shadows, reflection, skybox) | ours 1 thread fps | ours 1 thread "
        f"frames/CPU-s | ours 2 threads fps | mujoco.Renderer (MUJOCO_GL={os.environ.get('MUJOCO_GL')}, "
        f"LP_NUM_THREADS={os.environ.get('LP_NUM_THREADS')}) fps |"
    )
    print("|---|---|---|---|---|")
    rows = [
        ("hopper.xml", "track", "rgb"),
        ("humanoid.xml", "track", "rgb"),
        ("hopper.xml", -1, "rgb"),
        ("humanoid.xml", -1, "rgb"),
        ("hopper.xml", "track", "depth"),
        ("hopper.xml", "track", "seg"),
        ("humanoid.xml", "track", "depth"),
    ]
    for name, cam, mode in rows:
        one = ours_single(name, cam, mode, 1, sec)
        two = ours_single(name, cam, mode, 2, sec)
        mj = mujoco_single(name, cam, mode, sec)
        label = f"{name[:-4]} {mode}" + (", free camera" if cam == -1 else "")
        print(f"| {label} | {one[0]:,.1f} | {one[1]:,.1f} | {two[0]:,.1f} | {_fmt(mj)} |")
    for task in ("Hopper", "Humanoid"):
        # env.render() with v5's default camera; the peer column is Gymnasium's Hopper-v5 / Humanoid-v5
        one = ours_env(task, 1, sec)
        two = ours_env(task, 2, sec)
        print(f"| {task} env.render() | {one[0]:,.1f} | {one[1]:,.1f} | {two[0]:,.1f} | {_fmt(gym_env(task, sec))} |")
    if _MJ_ERROR:
        print(f"\nmujoco.Renderer column n/a: {_MJ_ERROR[0]}\n(install OSMesa: apt-get install -y libosmesa6)")
    print()
    print("| 64x64 batched (256 worlds per call) | frames/s 1 thread | frames/CPU-s 1 thread | frames/s 2 threads |")
    print("|---|---|---|---|")
    nworld = 64 if quick else 256
    for name, mode in (("hopper.xml", "rgb"), ("half_cheetah.xml", "rgb"), ("hopper.xml", "depth")):
        one = ours_batch(name, "track", nworld, 1, sec, mode)
        two = ours_batch(name, "track", nworld, 2, sec, mode)
        print(f"| {name[:-4]} {mode} | {one[0]:,.0f} | {one[1]:,.0f} | {two[0]:,.0f} |")
    mj = mujoco_single("hopper.xml", "track", "rgb", sec, size=64)
    print(f"\nmujoco.Renderer, one 64x64 Hopper frame at a time: {_fmt(mj)} frames/s")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if "--compare" in sys.argv:
        if _MJ_ERROR:
            print("\n--compare needs mujoco.Renderer: " + _MJ_ERROR[0])
        else:
            compare(os.path.join(ROOT, "benchmarks", "out"))
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
