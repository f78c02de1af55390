"""The renderer's look against committed reference images (tests/render_ref/*.png), so that a change in shading,
textures, shadows, reflection, haze or anti-aliasing shows.  The references were rendered by this renderer and
checked by eye against MuJoCo's own OpenGL output of the same scenes (benchmarks/bench_render.py --compare writes
such side-by-side images when an OSMesa build of MuJoCo is available); tests never need OpenGL.

    python tests/test_render_look.py --regen     # rewrite the references after an intended change of the look
"""

import os
import struct
import sys
import zlib

import numpy as np
import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REF_DIR = os.path.join(TESTS_DIR, "render_ref")
if os.path.dirname(TESTS_DIR) not in sys.path:
    sys.path.insert(0, os.path.dirname(TESTS_DIR))

import sim  # noqa: E402

# the mean absolute difference (of 255) and the share of pixels differing by more than 16 levels in some channel
# that a reference accepts: room for floating-point differences between CPUs (a pixel on a shadow or texel
# boundary may flip), far below what a change of the look produces (tens of levels on whole regions)
MEAN_TOL = 0.5
OUTLIER_LEVEL = 16
OUTLIER_SHARE = 0.005


def _gym(name):
    from conftest import gymnasium_assets_dir

    d = gymnasium_assets_dir()
    if d is None:
        pytest.skip("gymnasium is not installed")
    return os.path.join(d, name)


def _model(name):
    return os.path.join(TESTS_DIR, "models", name)


def _state(m, d, seed, spread):
    rng = np.random.default_rng(seed)
    q = np.array(m.qpos0, dtype=np.float64) + spread * rng.standard_normal(m.nq)
    for j in range(m.njnt):
        if m.jnt_type[j] == 0:  # free joint: random unit quaternion
            a = m.jnt_qposadr[j] + 3
            v = rng.standard_normal(4)
            q[a : a + 4] = v / np.linalg.norm(v)
    d.qpos = q
    sim.forward(m, d)


def _scene(name):
    """(image uint8, reference file name) of the named reference scene."""
    if name in ("hopper", "humanoid"):
        m = sim.load_model(_gym(name + ".xml"))
        d = sim.Data(m)
        _state(m, d, *((0, 0.05) if name == "hopper" else (1, 0.1)))
        with sim.Renderer(m, 96, 96) as r:
            r.update_scene(d, camera="track")
            return r.render()
    if name == "scene":
        m = sim.load_model(_model("render_scene.xml"))
        d = sim.Data(m)
        _state(m, d, 2, 0.02)
        with sim.Renderer(m, 120, 160, antialias=True) as r:
            r.update_scene(d, camera="fixed")
            return r.render()
    if name == "infinite":
        m = sim.load_model(_model("render_infinite.xml"))
        d = sim.Data(m)
        sim.forward(m, d)
        cam = sim.render.Camera.default_free(m)
        cam.elevation, cam.distance = -15.0, 6.0
        with sim.Renderer(m, 72, 96) as r:
            r.update_scene(d, camera=cam)
            return r.render()
    if name == "cheetah_batch":
        m = sim.load_model(_gym("half_cheetah.xml"))
        d = sim.Data(m, nworld=3)
        rng = np.random.default_rng(3)
        q = np.array(m.qpos0) + 0.4 * rng.standard_normal((3, m.nq))
        q[:, :2] = 0.0  # root x and z at the model's (standing on the floor)
        d.qpos = q
        sim.forward(m, d)
        with sim.Renderer(m, 64, 64) as r:
            r.update_scene(d, camera="track")
            return np.concatenate(list(r.render()), axis=1)
    if name == "skin_tendons":
        from test_render import _skin_pair

        m, d, _, _ = _skin_pair(0.7)
        cam = sim.render.Camera.default_free(m)
        cam.lookat[:] = (0.0, 0.0, 0.5)
        cam.distance, cam.elevation, cam.azimuth = 2.0, -20.0, 60.0
        with sim.Renderer(m, 72, 96) as r:
            r.update_scene(d, camera=cam)
            a = r.render()
        m = sim.load_model(_model("render_tendons.xml"))
        d = sim.Data(m)
        q = np.array(m.qpos0, dtype=np.float64)
        q[0] = 0.3
        d.qpos = q
        sim.forward(m, d)
        cam = sim.render.Camera.default_free(m)
        cam.elevation, cam.distance = -10.0, 3.0
        cam.lookat[2] = 1.0
        with sim.Renderer(m, 72, 96) as r:
            r.update_scene(d, camera=cam)
            return np.concatenate([a, r.render()], axis=1)
    if name == "readme":
        # the README's frame: Hopper, Humanoid (Gymnasium's models, their "track" cameras) and the test scene,
        # MuJoCo's default look with anti-aliasing, as env.render() shows them
        out = []
        for path, cam in (
            (_gym("hopper.xml"), "track"),
            (_gym("humanoid.xml"), "track"),
            (_model("render_scene.xml"), "fixed"),
        ):
            m = sim.load_model(path)
            d = sim.Data(m)
            sim.forward(m, d)  # the models' initial state
            with sim.Renderer(m, 240, 240, antialias=True) as r:
                r.update_scene(d, camera=cam)
                out.append(r.render())
        return np.concatenate(out, axis=1)
    raise KeyError(name)


SCENES = ["hopper", "humanoid", "scene", "infinite", "cheetah_batch", "skin_tendons", "readme"]


# ------------------------------------------------------------------------------------------------ PNG


def write_png(path, img):
    """8-bit RGB PNG (no dependency beyond zlib)."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def read_png(path):
    """Read an 8-bit RGB PNG written by write_png (filter type 0 on every row)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + n]
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 3 * w + 1)
    assert np.all(raw[:, 0] == 0), "only filter type 0 is supported"
    return raw[:, 1:].reshape(h, w, 3)


# ------------------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("name", SCENES)
def test_look_matches_reference(name):
    img = _scene(name)
    ref = read_png(os.path.join(REF_DIR, name + ".png"))
    assert img.shape == ref.shape
    diff = np.abs(img.astype(np.int16) - ref.astype(np.int16))
    mean = diff.mean()
    outliers = (diff.max(axis=2) > OUTLIER_LEVEL).mean()
    assert mean <= MEAN_TOL and outliers <= OUTLIER_SHARE, (
        f"{name}: mean abs diff {mean:.3f}, {100 * outliers:.2f} % pixels off by > {OUTLIER_LEVEL}"
    )


def test_png_round_trip(tmp_path):
    img = (np.arange(5 * 7 * 3) * 37 % 256).astype(np.uint8).reshape(5, 7, 3)
    write_png(tmp_path / "x.png", img)
    assert np.array_equal(read_png(tmp_path / "x.png"), img)


if __name__ == "__main__":
    if "--regen" in sys.argv:
        sys.path.insert(0, TESTS_DIR)
        os.makedirs(REF_DIR, exist_ok=True)
        for n in SCENES:
            write_png(os.path.join(REF_DIR, n + ".png"), _scene(n))
            print("wrote", os.path.join(REF_DIR, n + ".png"))
