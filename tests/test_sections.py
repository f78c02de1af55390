"""Non-body MJCF sections (tendon, actuator, sensor, equality, contact, keyframe, custom) against mujoco 3.17.

Every model is compiled by numjoco (sim.load_model, the full pipeline) and by mujoco.MjModel.from_xml_string;
every MjModel field of the section is compared: shapes exactly, integers exactly, floats to 1e-10 (relative and
absolute), plus the names of the section's objects.  The malformed models at the end must raise ModelError
naming the element and the attribute at fault.
"""

import mujoco
import numpy as np
import pytest

import sim
from sim.errors import ModelError, UnsupportedError

pytestmark = [pytest.mark.oracle, pytest.mark.compiler]

TOL = 1e-10

# section -> (field prefixes, size fields, mjtObj of its named objects, accessor on our Model)
SECTIONS = {
    "tendon": (("tendon_", "wrap_"), ("ntendon", "nwrap", "nuser_tendon"), mujoco.mjtObj.mjOBJ_TENDON, "tendon"),
    "actuator": (("actuator_",), ("nu", "na", "nuser_actuator"), mujoco.mjtObj.mjOBJ_ACTUATOR, "actuator"),
    "sensor": (("sensor_",), ("nsensor", "nsensordata", "nuser_sensor"), mujoco.mjtObj.mjOBJ_SENSOR, "sensor"),
    "equality": (("eq_",), ("neq",), mujoco.mjtObj.mjOBJ_EQUALITY, "equality"),
    "pair": (("pair_",), ("npair",), mujoco.mjtObj.mjOBJ_PAIR, "pair"),
    "exclude": (("exclude_",), ("nexclude",), mujoco.mjtObj.mjOBJ_EXCLUDE, "exclude"),
    "key": (("key_",), ("nkey",), mujoco.mjtObj.mjOBJ_KEY, "key"),
    "custom": (
        ("numeric_", "text_", "tuple_"),
        ("nnumeric", "nnumericdata", "ntext", "ntextdata", "ntuple", "ntupledata"),
        None,
        None,
    ),
}

# fields of these sections computed from dynamics at qpos0 by the setconst stage (compared elsewhere)
SETCONST_FIELDS = {
    "tendon_length0",
    "tendon_invweight0",
    "tendon_treeid",
    "tendon_treenum",
    "tendon_actuatorid",
    "actuator_length0",
    "actuator_acc0",
}


def compile_static(xml):
    """numjoco's compiler pipeline without the setconst stage.

    The setconst stage builds the jitted core model, which refuses features the smooth core does not simulate
    yet (tendon armature, wrapping geoms, ...); the section fields are static, so most tests compare them
    without that stage.  Models compiled this way give every springlength explicitly and no dampratio (those
    two are completed by setconst; see the tests using the full pipeline below).
    """
    import sim.compiler as comp
    from sim.mjcf import reader

    return comp.compile_document(reader.read(xml), set_constants=False)


def compare_sections(xml, sections, full=False):
    """List of mismatches between numjoco and mujoco for the given sections (empty when they agree)."""
    theirs = mujoco.MjModel.from_xml_string(xml)
    ours = sim.load_model(xml) if full else compile_static(xml)
    out = []
    for sec in sections:
        prefixes, sizes, objtype, accessor = SECTIONS[sec]
        names = [n for n in dir(theirs) if n.startswith(prefixes) and n not in SETCONST_FIELDS]
        for n in names + list(sizes):
            tv = getattr(theirs, n)
            if not isinstance(tv, (np.ndarray, int, bytes)):
                continue
            try:
                ov = getattr(ours, n)
            except AttributeError:
                out.append(f"{n}: missing")
                continue
            if isinstance(tv, bytes):
                if bytes(ov) != tv:
                    out.append(f"{n}: ours {ov!r} mujoco {tv!r}")
                continue
            ta, oa = np.asarray(tv), np.asarray(ov)
            if ta.shape != oa.shape:
                out.append(f"{n}: shape ours {oa.shape} mujoco {ta.shape}")
                continue
            if ta.dtype.kind in "iub":
                if oa.dtype.kind not in "iub" or not np.array_equal(oa.astype(np.int64), ta.astype(np.int64)):
                    out.append(f"{n}: ours {oa.tolist()} mujoco {ta.tolist()}")
            else:
                if not np.allclose(oa, ta, rtol=TOL, atol=TOL):
                    out.append(f"{n}: ours {oa.tolist()} mujoco {ta.tolist()}")
        if objtype is not None:
            count = getattr(theirs, sizes[0])
            for i in range(count):
                want = mujoco.mj_id2name(theirs, objtype, i) or ""
                got = getattr(ours, accessor)(i).name or ""
                if got != want:
                    out.append(f"{sec} {i} name: ours {got!r} mujoco {want!r}")
    return out


def check(xml, *sections, full=False):
    bad = compare_sections(xml, sections, full)
    assert not bad, "\n".join(bad)


# a small body tree used by most models: hinge/slide/ball joints, sphere/cylinder geoms, sites, a camera,
# a free body and a mocap body (masses keep the setconst stage well-conditioned)
BODIES = """
<worldbody>
  <geom name="floor" type="plane" size="5 5 .1"/>
  <camera name="cam" pos="0 -3 1" resolution="8 6"/>
  <body name="b1" pos="0 0 1">
    <joint name="hinge" axis="0 1 0" range="-60 60"/>
    <joint name="slide" type="slide" axis="1 0 0" range="-0.5 0.5"/>
    <geom name="g1" size="0.1" mass="1"/>
    <site name="s1" pos="0 0 0.2"/>
    <site name="s1b" pos="0.1 0 0.2"/>
    <body name="b2" pos="0.3 0 0" quat="0.9 0.1 0.2 0.3">
      <joint name="ball" type="ball"/>
      <geom name="wrap" type="cylinder" size="0.05 0.1" mass="1"/>
      <site name="side" pos="0 0.2 0"/>
      <body name="b3" pos="0.3 0 0">
        <joint name="hinge2" axis="0 0 1"/>
        <geom name="g3" type="sphere" size="0.08" mass="0.5"/>
        <site name="s3" pos="0.2 0 0"/>
        <site name="s3b" pos="0.2 0.1 0"/>
      </body>
    </body>
  </body>
  <body name="free" pos="1 1 1" euler="10 20 30">
    <freejoint name="fj"/>
    <geom name="gf" type="box" size="0.1 0.1 0.1" mass="2"/>
    <site name="sf"/>
  </body>
  <body name="mocap" mocap="true" pos="2 0 1" euler="0 0 45"/>
</worldbody>
"""


def model(*sections, head=""):
    return f"<mujoco>{head}{BODIES}{''.join(sections)}</mujoco>"


# ------------------------------------------------------------------------------------------------- tendons


def test_fixed_tendon():
    check(
        model("""<tendon>
      <fixed name="f1" range="-1 1" stiffness="3 0.1" damping="0.5" springlength="0.2" frictionloss="0.1"
             armature="0.05" margin="0.01" user="1 2 3" solreflimit="0.03 1.1" solimpfriction="0.8 0.9">
        <joint joint="hinge" coef="2"/><joint joint="slide" coef="-0.5"/>
      </fixed>
      <fixed name="f2" limited="false" range="1 2" actuatorfrcrange="-3 3" springlength="0.1 0.4">
        <joint joint="hinge2" coef="1"/>
      </fixed>
    </tendon>"""),
        "tendon",
    )


def test_fixed_tendon_springlength_default_is_length_at_qpos0():
    # springlength -1 (default) is replaced by the tendon length at qpos0 in the setconst stage
    check(
        model("""<tendon><fixed name="f"><joint joint="hinge" coef="2"/><joint joint="slide" coef="1"/></fixed>
    <spatial name="s"><site site="s1"/><site site="s3"/></spatial></tendon>"""),
        "tendon",
        full=True,
    )


def test_spatial_tendon_sites_geoms_pulleys():
    check(
        model("""<tendon>
      <spatial name="sp" width="0.01" rgba="0.1 0.2 0.3 0.4" range="0 2" limited="true" springlength="1">
        <site site="s1"/><geom geom="wrap" sidesite="side"/><site site="s3"/>
        <pulley divisor="2"/><site site="s1b"/><geom geom="g3"/><site site="s3b"/>
      </spatial>
      <spatial name="sp2" springlength="0.5"><site site="s1"/><site site="s3"/></spatial>
    </tendon>"""),
        "tendon",
    )


def test_tendon_default_classes_and_autolimits():
    check(
        model(
            """<tendon>
      <spatial class="t" range="0 3"><site site="s1"/><site site="s3"/></spatial>
      <fixed class="t"><joint joint="hinge" coef="1"/></fixed>
    </tendon>""",
            head="""<default><default class="t"><tendon width="0.02" rgba="1 0 0 1" stiffness="5"
    springlength="0.3" group="2" solimplimit="0.5 0.6"/></default></default>""",
        ),
        "tendon",
    )


def test_tendon_nuser_explicit():
    check(
        model(
            """<tendon><fixed user="4" springlength="0"><joint joint="hinge" coef="1"/></fixed></tendon>""",
            head='<size nuser_tendon="3"/>',
        ),
        "tendon",
    )


# ----------------------------------------------------------------------------------------------- actuators

TENDON_FOR_ACT = """<tendon><fixed name="ft" range="0 1"><joint joint="hinge" coef="1"/></fixed>
<spatial name="st"><site site="s1"/><site site="s3"/></spatial></tendon>"""


def test_general_and_transmissions():
    check(
        model(
            TENDON_FOR_ACT,
            """<actuator>
      <general name="a0" joint="hinge" gear="2 0 0 0 0 1" ctrlrange="-1 1" forcerange="-5 5" group="2"
               dyntype="filter" dynprm="0.3" gaintype="affine" gainprm="1 2 3" biastype="affine" biasprm="4 5 6"
               actrange="-2 2" actearly="true" user="1 2"/>
      <general jointinparent="slide" damping="1 0.5" armature="0.2"/>
      <general tendon="ft" lengthrange="0 1"/>
      <general site="s1" refsite="s1b" gear="0 0 1 0 0 0"/>
      <general cranksite="s3" slidersite="s1" cranklength="0.4"/>
      <general body="b3"/>
      <general joint="hinge2" dyntype="integrator" actlimited="false"/>
      <general joint="hinge2" dyntype="user" actdim="3"/>
    </actuator>""",
        ),
        "actuator",
    )


def test_shortcuts():
    check(
        model(
            TENDON_FOR_ACT,
            """<actuator>
      <motor joint="hinge" gear="3" ctrlrange="-1 1"/>
      <position joint="hinge" kp="20" kv="2" ctrlrange="-1 1"/>
      <position tendon="ft" kp="5" inheritrange="0.8" timeconst="0.05"/>
      <position joint="slide" kp="10" inheritrange="1"/>
      <velocity joint="slide" kv="3"/>
      <intvelocity joint="hinge" kp="4" actrange="-1 1"/>
      <intvelocity joint="hinge" kp="4" inheritrange="0.5"/>
      <damper joint="hinge2" kv="0.7" ctrlrange="0 2"/>
      <cylinder site="s1" timeconst="0.2" diameter="0.05" bias="1 2 3"/>
      <cylinder joint="slide" area="0.3"/>
      <adhesion body="b3" gain="4" ctrlrange="0 1"/>
      <general joint="hinge" input="vel"/>
    </actuator>""",
        ),
        "actuator",
    )


def test_position_dampratio():
    # biasprm[2] > 0 is a damping ratio until the setconst stage converts it with the joint mass
    check(
        model("""<actuator><position joint="hinge" kp="20" dampratio="1"/>
      <position joint="slide" kp="5" dampratio="0.3"/></actuator>"""),
        "actuator",
        full=True,
    )


def test_muscles():
    check(
        model(
            TENDON_FOR_ACT,
            """<actuator>
      <muscle tendon="st" lengthrange="0.1 0.9"/>
      <muscle joint="hinge" lengthrange="-1 1" timeconst="0.02 0.05" tausmooth="0.1" range="0.5 1.5" force="100"
              scale="150" lmin="0.4" lmax="1.7" vmax="2" fpmax="1.4" fvmax="1.3"/>
    </actuator>""",
        ),
        "actuator",
    )


@pytest.mark.parametrize("target", ['tendon="ft"', 'joint="slide"', 'jointinparent="hinge"'])
def test_muscle_lengthrange_uselimit(target):
    check(
        model(
            TENDON_FOR_ACT,
            f"""<actuator><muscle {target}/></actuator>""",
            head='<compiler><lengthrange uselimit="true"/></compiler>',
        ),
        "actuator",
    )


def test_lengthrange_uselimit_reads_flat_trnid():
    # MuJoCo reads actuator_trnid[i] of the flat (nu x 2) array: for actuator 1 that is actuator 0's second
    # column (-1 here), so MuJoCo simulates instead of copying the joint range; numjoco follows (its simulated
    # length range: tests/test_lengthrange.py)
    xml = model(
        TENDON_FOR_ACT,
        """<actuator><muscle tendon="ft"/><muscle joint="slide"/></actuator>""",
        head='<compiler><lengthrange uselimit="true"/></compiler>',
    )
    theirs = mujoco.MjModel.from_xml_string(xml)
    assert theirs.actuator_lengthrange[1, 0] != -0.5  # simulated, not the joint range
    check(xml, "actuator", full=True)


def test_lengthrange_mode_none_and_all():
    check(
        model(
            TENDON_FOR_ACT,
            """<actuator><motor tendon="ft"/><position joint="slide" lengthrange="0 1"/>
    </actuator>""",
            head='<compiler><lengthrange mode="all" uselimit="true"/></compiler>',
        ),
        "actuator",
    )
    check(
        model(
            """<actuator><muscle joint="hinge"/></actuator>""", head='<compiler><lengthrange mode="none"/></compiler>'
        ),
        "actuator",
    )


def test_actuator_default_classes():
    # MuJoCo 3.17: a shortcut inherits parameters only from the same shortcut, or from <general> with the
    # gain type it produces; everything else restarts from the defaults
    head = """<default>
      <default class="p"><position kp="7" kv="2" timeconst="0.1" ctrlrange="-1 1" gear="2"/>
        <default class="p2"><velocity kv="3"/></default>
      </default>
      <default class="g"><general gainprm="7 8 9" biasprm="1 2 -3" dynprm="4 5 6" dyntype="filterexact"
        biastype="affine" forcerange="-4 4" user="5"/></default>
      <default class="m"><muscle force="50" timeconst="0.02 0.05" ctrlrange="0 1"/></default>
      <default class="c"><cylinder area="2" bias="1 2 3" timeconst="0.3"/></default>
      <default class="d"><damper kv="4" ctrlrange="0 1"/></default>
    </default>"""
    acts = """<actuator>
      <position class="p" joint="hinge"/><position class="p" joint="hinge" kp="3" timeconst="0"/>
      <motor class="p" joint="hinge"/><velocity class="p" joint="hinge"/>
      <velocity class="p2" joint="hinge"/><general class="p" joint="hinge"/>
      <position class="g" joint="hinge"/><intvelocity class="g" joint="hinge"/><velocity class="g" joint="hinge"/>
      <cylinder class="g" joint="hinge"/><general class="g" joint="hinge" gainprm="1"/>
      <muscle class="m" joint="hinge" lengthrange="-1 1" force="20"/><muscle class="g" joint="hinge" lengthrange="0 1"/>
      <cylinder class="c" joint="hinge"/><cylinder class="c" joint="hinge" bias="4 5 6"/>
      <damper class="d" joint="hinge"/><damper class="d" joint="hinge" kv="1"/><adhesion class="d" body="b1"/>
    </actuator>"""
    check(model(acts, head=head), "actuator")


def test_actuator_default_class_shortcut_memory():
    head = """<default><default class="p"><position kp="7" kv="2" timeconst="0.1"/>
      <default class="p2"><velocity kv="3"/></default></default></default>"""
    check(model("""<actuator><position class="p2" joint="hinge"/></actuator>""", head=head), "actuator")


def test_actuator_autolimits_false_explicit_limits():
    xml = """<mujoco><compiler autolimits="false" angle="radian"/><worldbody><body><joint name="j"/>
      <geom size="0.1" mass="1"/></body></worldbody><actuator>
      <motor joint="j" ctrllimited="true" ctrlrange="-1 1" forcelimited="false" forcerange="-2 2"/>
      <general joint="j" dyntype="integrator" actlimited="true" actrange="0 1"/></actuator></mujoco>"""
    check(xml, "actuator")


def test_actuator_nuser():
    check(
        model("""<actuator><motor joint="hinge" user="1"/><motor joint="hinge" user="1 2 3"/></actuator>"""), "actuator"
    )
    check(
        model("""<actuator><motor joint="hinge" user="1"/></actuator>""", head='<size nuser_actuator="4"/>'), "actuator"
    )


# ------------------------------------------------------------------------------------------------- sensors


def test_site_joint_tendon_actuator_sensors():
    check(
        model(
            TENDON_FOR_ACT,
            """<actuator><motor name="m" joint="hinge"/></actuator><sensor>
      <touch site="s1" user="1 2"/><accelerometer site="s1" noise="0.1" cutoff="3"/><velocimeter site="s1"/>
      <gyro site="s1"/><force site="s1"/><torque site="s1"/><magnetometer site="s1"/>
      <jointpos joint="hinge"/><jointvel joint="slide"/><jointactuatorfrc joint="hinge"/>
      <ballquat joint="ball"/><ballangvel joint="ball"/><jointlimitpos joint="hinge"/><jointlimitvel joint="slide"/>
      <jointlimitfrc joint="hinge"/><tendonpos tendon="ft"/><tendonvel tendon="st"/><tendonactuatorfrc tendon="ft"/>
      <tendonlimitpos tendon="ft"/><tendonlimitvel tendon="ft"/><tendonlimitfrc tendon="ft"/>
      <actuatorpos actuator="m"/><actuatorvel actuator="m"/><actuatorfrc actuator="m" name="af"/>
    </sensor>""",
        ),
        "sensor",
    )


def test_frame_and_subtree_sensors():
    check(
        model("""<sensor>
      <framepos objtype="body" objname="b2"/><framequat objtype="xbody" objname="b2" reftype="site" refname="s1"/>
      <framexaxis objtype="geom" objname="g3"/><frameyaxis objtype="site" objname="s3" reftype="body" refname="b1"/>
      <framezaxis objtype="camera" objname="cam"/><framelinvel objtype="body" objname="free" reftype="geom" refname="g1"/>
      <frameangvel objtype="body" objname="b3" reftype="camera" refname="cam"/><framelinacc objtype="site" objname="s1"/>
      <frameangacc objtype="body" objname="b3"/><subtreecom body="b1"/><subtreelinvel body="b1"/>
      <subtreeangmom body="world"/><insidesite objtype="geom" objname="g3" site="s1"/>
    </sensor>"""),
        "sensor",
    )


def test_contact_ray_camera_and_misc_sensors():
    check(
        model(
            """<sensor>
      <camprojection site="s1" camera="cam"/><rangefinder site="s1"/><rangefinder site="s3" data="dist point normal"/>
      <rangefinder camera="cam" data="dir depth"/>
      <distance geom1="g1" geom2="g3"/><normal body1="b1" geom2="gf" cutoff="1"/><fromto body1="b1" body2="free"/>
      <contact/><contact geom1="g1" subtree2="b2" data="found force pos" num="3" reduce="mindist"/>
      <contact site="s1" body2="b3" data="dist normal tangent" reduce="maxforce"/><contact body1="free" data="linvel angvel"/>
      <contact subtree1="b1" geom2="floor" data="torque" reduce="netforce" num="2"/>
      <e_potential/><e_kinetic noise="0.5"/><clock/>
      <user dim="3" datatype="axis" needstage="pos" objtype="tendon" objname="ft"/><user dim="2" needstage="vel"/>
      <user dim="4" datatype="quaternion" objtype="xbody" objname="b1" user="3 4 5"/>
    </sensor>""",
            TENDON_FOR_ACT.replace("<tendon>", "<tendon>"),
        ),
        "sensor",
    )


def test_sensor_nuser_explicit():
    check(model("""<sensor><clock user="1"/><clock/></sensor>""", head='<size nuser_sensor="2"/>'), "sensor")


# ------------------------------------------------------------------------------------------------ equality


def test_equality_all_kinds():
    check(
        model("""<tendon><fixed name="t1"><joint joint="hinge" coef="1"/></fixed>
      <fixed name="t2"><joint joint="slide" coef="1"/></fixed></tendon>
    <equality>
      <connect body1="b1" body2="b3" anchor="0.1 0.2 0.3"/><connect body1="free" anchor="0 0 1"/>
      <connect site1="s1" site2="s3"/>
      <weld body1="b3" body2="b1"/><weld body1="free" anchor="1 2 3" torquescale="2" solref="0.05 1"/>
      <weld body1="b2" body2="mocap"/><weld site1="s1" site2="sf"/><weld body1="b1" relpose="1 2 3 1 1 0 0"/>
      <joint joint1="hinge"/><joint name="jj" joint1="hinge" joint2="slide" polycoef="1 2" active="false"
             solimp="0.8 0.9"/>
      <tendon tendon1="t1" tendon2="t2" polycoef="0 1 0.5"/>
    </equality>"""),
        "equality",
    )


def test_equality_default_class():
    check(
        model(
            """<equality><joint class="e" joint1="hinge"/><connect body1="b1" anchor="0 0 0"/></equality>""",
            head='<default><equality solref="0.01 0.5" active="false"/><default class="e">'
            '<equality solimp="0.7"/></default></default>',
        ),
        "equality",
    )


# ------------------------------------------------------------------------------------------------- contact


def test_pairs_and_excludes():
    check(
        model(
            """<contact>
      <pair geom1="g3" geom2="g1"/><pair name="p" class="x" geom1="g1" geom2="gf" friction="1 2 3 4 5" gap="0.2"
            adhesion="3" solreffriction="0.1 2" solimp="0.5"/><pair geom1="floor" geom2="g3" margin="0.1"/>
      <exclude body1="b3" body2="b1"/><exclude name="e" body1="world" body2="b1"/>
    </contact>""",
            head='<default><pair friction="0.5"/><default class="x"><pair condim="6" solref="0.03"/>'
            "</default></default>",
        ),
        "pair",
        "exclude",
    )


# ------------------------------------------------------------------------------------------------ keyframes


def test_keyframes():
    check(
        model(
            """<actuator><motor joint="hinge"/><position joint="slide" timeconst="0.1"/></actuator>
    <keyframe>
      <key name="k" time="1" qpos="0.1 0.2 2 0 0 0 0.3 1 2 3 1 1 0 0" qvel="1 2 3 4 5 6 7 8 9 10 11 12"
           act="3" ctrl="1 2" mquat="2 0 0 0"/>
      <key mpos="1 1 1"/><key/><key qpos="0.5 0.1" qvel="3" ctrl="2"/>
    </keyframe>""",
            head='<size nkey="5"/>',
        ),
        "key",
    )


# --------------------------------------------------------------------------------------------------- custom


def test_custom_fields():
    check(
        model("""<custom>
      <numeric name="n" data="1 2"/><numeric name="n2" size="3" data="5"/><numeric name="n3" size="2"/>
      <text name="t" data="hello world"/><text name="t2" data="x"/>
      <tuple name="tu"><element objtype="body" objname="b1" prm="2"/><element objtype="tuple" objname="tu2"/>
        <element objtype="site" objname="s3"/><element objtype="numeric" objname="n2"/></tuple>
      <tuple name="tu2"><element objtype="xbody" objname="b3"/></tuple>
    </custom>"""),
        "custom",
    )


# ------------------------------------------------------------------------------------------- malformed input

# (model snippet, element, attribute) -> must raise ModelError naming that element and attribute
MALFORMED = [
    ('<actuator><motor joint="nope"/></actuator>', "motor", "joint"),
    ('<actuator><motor joint="hinge" refsite="s1"/></actuator>', "motor", "refsite"),
    ('<actuator><general cranksite="s1" cranklength="1"/></actuator>', "general", "slidersite"),
    ('<actuator><general joint="hinge" cranklength="1"/></actuator>', "general", "cranklength"),
    ('<actuator><general cranksite="s1" slidersite="s3"/></actuator>', "general", "cranklength"),
    ("<actuator><motor/></actuator>", "motor", None),
    ('<actuator><position joint="hinge" kv="1" dampratio="1"/></actuator>', "position", "dampratio"),
    ('<actuator><motor joint="hinge" ctrllimited="true" ctrlrange="1 -1"/></actuator>', "motor", "ctrlrange"),
    ('<actuator><general joint="hinge" actrange="0 1"/></actuator>', "general", "actrange"),
    ('<actuator><damper joint="hinge" kv="1" ctrlrange="-1 1"/></actuator>', "damper", "ctrlrange"),
    ('<actuator><position site="s1" inheritrange="1"/></actuator>', "position", "inheritrange"),
    ('<actuator><general joint="hinge" actdim="1"/></actuator>', "general", "actdim"),
    ('<actuator><muscle joint="hinge" lengthrange="0 1" range="1 0.5"/></actuator>', "muscle", "range"),
    ('<size nuser_actuator="1"/><actuator><motor joint="hinge" user="1 2"/></actuator>', "motor", "user"),
    ('<tendon><fixed name="t"><joint joint="nope" coef="1"/></fixed></tendon>', "joint", "joint"),
    ('<tendon><spatial><site site="s1"/><site site="nope"/></spatial></tendon>', "site", "site"),
    ('<tendon><spatial><site site="s1"/><geom geom="gf"/><site site="s3"/></spatial></tendon>', "geom", "geom"),
    ('<tendon><spatial><site site="s1"/><geom geom="g1"/></spatial></tendon>', "geom", "geom"),
    ('<tendon><spatial><site site="s1"/></spatial></tendon>', "spatial", None),
    ("<tendon><fixed/></tendon>", "fixed", None),
    ('<tendon><spatial width="0"><site site="s1"/><site site="s3"/></spatial></tendon>', "spatial", "width"),
    ('<tendon><fixed range="1 0" limited="true"><joint joint="hinge" coef="1"/></fixed></tendon>', "fixed", "range"),
    ('<tendon><fixed springlength="2 1"><joint joint="hinge" coef="1"/></fixed></tendon>', "fixed", "springlength"),
    (
        '<tendon><spatial><site site="s1"/><site site="s3"/><geom geom="g1" sidesite="x"/></spatial></tendon>',
        "geom",
        "sidesite",
    ),
    ('<sensor><jointpos joint="nope"/></sensor>', "jointpos", "joint"),
    ('<sensor><jointpos joint="ball"/></sensor>', "jointpos", "joint"),
    ('<sensor><ballquat joint="hinge"/></sensor>', "ballquat", "joint"),
    ('<sensor><jointlimitpos joint="hinge2"/></sensor>', "jointlimitpos", "joint"),
    ('<sensor><framepos objtype="body" objname="nope"/></sensor>', "framepos", "objname"),
    ('<sensor><framepos objtype="body" objname="b1" reftype="site"/></sensor>', "framepos", "refname"),
    ('<sensor><accelerometer site="s1" noise="-1"/></sensor>', "accelerometer", "noise"),
    ('<sensor><framequat objtype="body" objname="b1" cutoff="1"/></sensor>', "framequat", "cutoff"),
    ('<sensor><contact data="force found"/></sensor>', "contact", "data"),
    ('<sensor><contact geom1="g1" body1="b1"/></sensor>', "contact", "geom1"),
    ('<sensor><distance geom1="g1"/></sensor>', "distance", "geom2"),
    ('<sensor><user dim="2" datatype="axis"/></sensor>', "user", "dim"),
    ('<equality><connect body1="nope" anchor="0 0 0"/></equality>', "connect", "body1"),
    ('<equality><connect body1="b1"/></equality>', "connect", "anchor"),
    ('<equality><weld site1="s1" site2="s3" body1="b1"/></equality>', "weld", "body1"),
    ('<equality><weld site1="s1"/></equality>', "weld", "site2"),
    ('<equality><joint joint1="ball"/></equality>', "joint", "joint1"),
    ('<equality><tendon tendon1="nope"/></equality>', "tendon", "tendon1"),
    ('<contact><pair geom1="g1" geom2="nope"/></contact>', "pair", "geom2"),
    ('<contact><pair geom1="g1" geom2="g3" condim="2"/></contact>', "pair", "condim"),
    ('<contact><exclude body1="b1" body2="nope"/></contact>', "exclude", "body2"),
    ('<keyframe><key name="k" qpos="' + "0 " * 15 + '"/></keyframe>', "key", "qpos"),
    ('<keyframe><key qvel="' + "0 " * 13 + '"/></keyframe>', "key", "qvel"),
    ('<actuator><motor joint="hinge"/></actuator><keyframe><key ctrl="1 2"/></keyframe>', "key", "ctrl"),
    ('<keyframe><key mpos="1 2 3 4"/></keyframe>', "key", "mpos"),
    ('<custom><numeric name="n" size="1" data="1 2"/></custom>', "numeric", "size"),
    ('<custom><tuple name="t"><element objtype="thing" objname="b1"/></tuple></custom>', "element", "objtype"),
    ('<custom><tuple name="t"><element objtype="body" objname="nope"/></tuple></custom>', "element", "objname"),
]


@pytest.mark.parametrize(
    "snippet,element,attribute", MALFORMED, ids=[f"{e}-{a}-{i}" for i, (_, e, a) in enumerate(MALFORMED)]
)
def test_malformed(snippet, element, attribute):
    xml = (
        model(snippet)
        if "<size" not in snippet
        else "<mujoco>" + snippet[: snippet.index("/>") + 2] + BODIES + snippet[snippet.index("/>") + 2 :] + "</mujoco>"
    )
    with pytest.raises(ModelError) as info:
        sim.load_model(xml)
    err = info.value
    assert not isinstance(err, UnsupportedError), str(err)
    assert err.element == element, str(err)
    assert err.attribute == attribute, str(err)
    assert err.line is not None, str(err)


# mujoco rejects these too (sanity check that the cases above are real errors)
STRICTER_THAN_MUJOCO = set()  # none left (two transmissions now keep the last one, as MuJoCo's OneActuator)


@pytest.mark.parametrize("index", [i for i in range(len(MALFORMED)) if i not in STRICTER_THAN_MUJOCO])
def test_malformed_rejected_by_mujoco(index):
    snippet = MALFORMED[index][0]
    xml = (
        model(snippet)
        if "<size" not in snippet
        else "<mujoco>" + snippet[: snippet.index("/>") + 2] + BODIES + snippet[snippet.index("/>") + 2 :] + "</mujoco>"
    )
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)


# ------------------------------------------------------------------------------------------------ unsupported

UNSUPPORTED = [
    '<actuator><pid joint="hinge" kp="1"/></actuator>',
    # a DC motor with other than one control (input="none", or several inputs): numjoco simulates one per actuator
    '<actuator><dcmotor joint="hinge" motorconst="1" resistance="1" input="none"/></actuator>',
    '<actuator><orientation joint="ball" kp="1"/></actuator>',
]


@pytest.mark.parametrize("snippet", UNSUPPORTED)
def test_unsupported_raises_at_load(snippet):
    with pytest.raises(UnsupportedError) as info:
        sim.load_model(model(snippet))
    assert info.value.element is not None
