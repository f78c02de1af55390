"""Inputs on which the MJCF reader used to disagree with MuJoCo 3.17 (issue 16's fuzzing): attributes written as
empty strings, text between elements, repeated names, non-positive timesteps; numbers in C's forms (strtod /
int32 ranges), the XML tinyxml2 reads and expat refused (control characters, invalid references, raw '&' / '<'
in values, bytes that are not UTF-8, a second root, a NUL), <inertial> without an inertia, a replicate's
childclass, <size memory> syntax and buffers no machine can allocate (tests/test_fuzz_mjcf.py finds them).  Every case is decided by the
oracle: what mujoco accepts we accept and compile to the same Model (tests/oracle.py); what it rejects we reject
with a sim.ModelError naming the file, line, element and attribute.
"""

import warnings

import mujoco
import pytest

import oracle

import sim

BODY = "<body name='b' pos='0 0 1'><joint name='j'/><geom name='g' size='.1'/></body>"


def model(world=BODY, extra="", head=""):
    return f"<mujoco>{head}<worldbody>{world}</worldbody>{extra}</mujoco>"


def assert_same(xml):
    theirs = mujoco.MjModel.from_xml_string(xml)
    ours = sim.load_model(xml)
    oracle.assert_models_match(ours, theirs)
    return ours, theirs


def assert_rejected(xml, element, attribute, line=1):
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(xml)
    assert not isinstance(e.value, sim.UnsupportedError), e.value
    assert (e.value.element, e.value.attribute, e.value.line) == (element, attribute, line), str(e.value)
    assert "<string>" in str(e.value)


# --------------------------------------------------------------------------------------- empty attributes

# MuJoCo reads a number list with no number as an absent attribute: the default (or inherited) value stays
EMPTY_ACCEPTED = {
    "joint_axis": model("<body><joint axis=''/><geom size='.1'/></body>"),
    "body_pos": model("<body pos=''><joint/><geom size='.1'/></body>"),
    "option_timestep": model(head="<option timestep=''/>"),
    "option_gravity_blank": model(head="<option gravity='   '/>"),
    "body_quat": model("<body quat=''><joint/><geom size='.1'/></body>"),
    "euler_next_to_quat": model("<body quat='0 1 0 0' euler=''><joint/><geom size='.1'/></body>"),
    "geom_fromto": model("<body><joint/><geom type='capsule' size='.1 .2' fromto=''/></body>"),
    "fromto_next_to_pos": model("<body><joint/><geom type='capsule' pos='0 0 1' size='.1 .2' fromto=''/></body>"),
    "geom_condim": model("<body><joint/><geom size='.1' condim=''/></body>"),
    "motor_gear": model(extra="<actuator><motor joint='j' gear=''/></actuator>"),
    "default_geom_pos": model(extra="", head="<default><geom pos='' size='.2'/></default>"),
    "default_keeps_class_value": model(
        "<body><joint class='c' damping=''/><geom size='.1'/></body>",
        head="<default><default class='c'><joint damping='3'/></default></default>",
    ),
    "key_qpos": model(extra="<keyframe><key qpos=''/></keyframe>"),
    "body_user": model("<body user=''><joint/><geom size='.1'/></body>"),
    "empty_name": model("<body name=''><joint/><geom size='.1'/></body>"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(EMPTY_ACCEPTED))
def test_empty_attribute_accepted(name):
    ours, theirs = assert_same(EMPTY_ACCEPTED[name])
    if name == "option_timestep":
        assert ours.opt.timestep == theirs.opt.timestep == 0.002
    if name == "joint_axis":
        assert list(ours.jnt_axis[0]) == [0, 0, 1]


# (xml, element, attribute): a required number left empty is missing; an empty keyword or class name is invalid
EMPTY_REJECTED = {
    "required_mass": (model("<body><inertial pos='0 0 0' mass=''/><joint/></body>"), "inertial", "mass"),
    "joint_type": (model("<body><joint type=''/><geom size='.1'/></body>"), "joint", "type"),
    "joint_limited": (model("<body><joint limited=''/><geom size='.1'/></body>"), "joint", "limited"),
    "option_integrator": (model(head="<option integrator=''/>"), "option", "integrator"),
    "geom_class": (model("<body><joint/><geom class='' size='.1'/></body>"), "geom", "class"),
    "geom_size_blank": (model("<body><joint/><geom size='  '/></body>"), "geom", "size"),
    "replicate_count": (model("<replicate count=''><geom size='.1'/></replicate>"), "replicate", "count"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(EMPTY_REJECTED))
def test_empty_attribute_rejected(name):
    xml, element, attribute = EMPTY_REJECTED[name]
    assert_rejected(xml, element, attribute)


# ------------------------------------------------------------------------------------------- stray text

STRAY_TEXT = {
    "between_sections": "<mujoco>hello<worldbody>abc" + BODY + "def</worldbody>tail</mujoco>",
    "inside_elements": "<mujoco><worldbody><body>x<joint/>y<geom size='.1'>inside</geom>z</body></worldbody>"
    "<option>text<flag gravity='disable'>more</flag></option></mujoco>",
    "cdata_and_entities": "<mujoco><![CDATA[ a < b ]]>&amp;&lt;<worldbody>" + BODY + "</worldbody></mujoco>",
    "undefined_entity": "<mujoco>&nbsp;<worldbody>" + BODY + "</worldbody></mujoco>",
    "multiline_notes": "<mujoco>\n  Notes: this model is a pendulum.\n  <worldbody>\n"
    + BODY
    + "\n  </worldbody>\n</mujoco>",
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(STRAY_TEXT))
def test_text_between_elements_is_ignored(name):
    assert_same(STRAY_TEXT[name])


# -------------------------------------------------------------------------------------------- repeated names

# kind -> model with two objects of that kind called 'x' (the second on line 2)
B2 = (
    "<body name='a'><joint name='ja'/><geom name='ga' size='.1'/><site name='sa'/></body>"
    "<body name='c'><joint name='jc'/><geom name='gc' size='.1'/><site name='sc'/></body>"
)
REPEATED = {
    "body": (
        "<mujoco><worldbody><body name='x'><geom size='.1'/></body>\n<body name='x'><geom size='.1'/></body>"
        "</worldbody></mujoco>",
        "body",
    ),
    "joint": (
        "<mujoco><worldbody><body><joint name='x'/><geom size='.1'/>\n<body><joint name='x'/>"
        "<geom size='.1'/></body></body></worldbody></mujoco>",
        "joint",
    ),
    "joint_and_freejoint": (
        "<mujoco><worldbody><body><freejoint name='x'/><geom size='.1'/></body>\n<body>"
        "<joint name='x'/><geom size='.1'/></body></worldbody></mujoco>",
        "joint",
    ),
    "joint_in_frame": (
        "<mujoco><worldbody><body><frame><joint name='x'/></frame>\n<joint name='x' axis='1 0 0'/>"
        "<geom size='.1'/></body></worldbody></mujoco>",
        "joint",
    ),
    "geom": ("<mujoco><worldbody><geom name='x' size='.1'/>\n<geom name='x' size='.1'/></worldbody></mujoco>", "geom"),
    "site": ("<mujoco><worldbody><site name='x'/>\n<site name='x'/></worldbody></mujoco>", "site"),
    "camera": ("<mujoco><worldbody><camera name='x'/>\n<camera name='x'/></worldbody></mujoco>", "camera"),
    "light": ("<mujoco><worldbody><light name='x'/>\n<light name='x'/></worldbody></mujoco>", "light"),
    "world_body_name": (
        "<mujoco><worldbody>\n<body name='world'><geom size='.1'/></body></worldbody></mujoco>",
        "body",
    ),
    "mesh": (
        "<mujoco><asset><mesh name='x' vertex='0 0 0 1 0 0 0 1 0 0 0 1'/>\n<mesh name='x' "
        "vertex='0 0 0 1 0 0 0 1 0 0 0 1'/></asset></mujoco>",
        "mesh",
    ),
    "material": ("<mujoco><asset><material name='x'/>\n<material name='x'/></asset></mujoco>", "material"),
    "texture": (
        "<mujoco><asset><texture name='x' builtin='flat' width='8' height='8'/>\n<texture name='x' "
        "builtin='flat' width='8' height='8'/></asset></mujoco>",
        "texture",
    ),
    "hfield": (
        "<mujoco><asset><hfield name='x' nrow='2' ncol='2' size='1 1 1 1'/>\n<hfield name='x' nrow='2' "
        "ncol='2' size='1 1 1 1'/></asset></mujoco>",
        "hfield",
    ),
    "pair": (
        f"<mujoco><worldbody>{B2}</worldbody><contact><pair name='x' geom1='ga' geom2='gc'/>\n<pair name='x' "
        "geom1='ga' geom2='gc'/></contact></mujoco>",
        "pair",
    ),
    "exclude": (
        f"<mujoco><worldbody>{B2}</worldbody><contact><exclude name='x' body1='a' body2='c'/>\n<exclude "
        "name='x' body1='a' body2='c'/></contact></mujoco>",
        "exclude",
    ),
    "equality": (
        f"<mujoco><worldbody>{B2}</worldbody><equality><joint name='x' joint1='ja'/>\n<joint name='x' "
        "joint1='jc'/></equality></mujoco>",
        "joint",
    ),
    "tendon": (
        f"<mujoco><worldbody>{B2}</worldbody><tendon><fixed name='x'><joint joint='ja' coef='1'/></fixed>\n"
        "<fixed name='x'><joint joint='jc' coef='1'/></fixed></tendon></mujoco>",
        "fixed",
    ),
    "actuator": (
        f"<mujoco><worldbody>{B2}</worldbody><actuator><motor name='x' joint='ja'/>\n<motor name='x' "
        "joint='jc'/></actuator></mujoco>",
        "motor",
    ),
    "sensor": (
        f"<mujoco><worldbody>{B2}</worldbody><sensor><jointpos name='x' joint='ja'/>\n<jointpos name='x' "
        "joint='jc'/></sensor></mujoco>",
        "jointpos",
    ),
    "numeric": (
        "<mujoco><custom><numeric name='x' data='1'/>\n<numeric name='x' data='1'/></custom></mujoco>",
        "numeric",
    ),
    "text": ("<mujoco><custom><text name='x' data='a'/>\n<text name='x' data='a'/></custom></mujoco>", "text"),
    "tuple": ("<mujoco><custom><tuple name='x'/>\n<tuple name='x'/></custom></mujoco>", "tuple"),
    "key": (
        f"<mujoco><worldbody>{B2}</worldbody><keyframe><key name='x'/>\n<key name='x'/></keyframe></mujoco>",
        "key",
    ),
    "skin": (
        "<mujoco><worldbody><body name='a'/></worldbody><deformable>"
        + "\n".join(
            "<skin name='x' vertex='0 0 0 1 0 0 0 1 0' face='0 1 2'><bone body='a' bindpos='0 0 0' bindquat='1 0 0 0' "
            "vertid='0 1 2' vertweight='1 1 1'/></skin>"
            for _ in range(2)
        )
        + "</deformable></mujoco>",
        "skin",
    ),
    "replicated_name_taken_later": (
        "<mujoco><worldbody><replicate count='2'><body name='b'><joint name='j1'/>"
        "<geom size='.1'/></body></replicate>\n<body><joint name='j10'/>"
        "<geom size='.1'/></body></worldbody></mujoco>",
        "joint",
    ),
}


@pytest.mark.oracle
@pytest.mark.parametrize("kind", sorted(REPEATED))
def test_repeated_name_rejected(kind):
    xml, element = REPEATED[kind]
    assert_rejected(xml, element, "name", line=2)


def test_same_name_in_different_kinds_accepted():
    assert_same(
        "<mujoco><worldbody><body name='x'><joint name='x'/><geom name='x' size='.1'/><site name='x'/>"
        "</body></worldbody><actuator><motor name='x' joint='x'/></actuator><sensor><jointpos name='x' "
        "joint='x'/></sensor></mujoco>"
    )


# ------------------------------------------------------------------------------------------ other values


@pytest.mark.oracle
@pytest.mark.parametrize("timestep", ["0", "-0.002"])
def test_non_positive_timestep_accepted(timestep):
    """MuJoCo loads it (time stands still or runs backwards); so do we, and the simulation agrees."""
    xml = model(head=f"<option timestep='{timestep}'/>")
    ours, theirs = assert_same(xml)
    md = mujoco.MjData(theirs)
    d = sim.Data(ours)
    md.qvel[:] = 0.5
    d.qvel = md.qvel.copy()
    for _ in range(20):
        mujoco.mj_step(theirs, md)
        sim.step(ours, d)
    assert abs(float(d.qpos.ravel()[0]) - md.qpos[0]) <= 1e-12
    assert float(d.time) == md.time


# ------------------------------------------------------------------------------- numbers as strtod reads them


def _joint(attr, value):
    return model(f"<body><joint {attr}='{value}'/><geom size='.1'/></body>")


# MuJoCo reads C's number forms; these load in both, to the same model
NUMBERS_ACCEPTED = {
    "hex_float": ("damping", "0x1.8p3"),
    "hex_int_as_real": ("damping", "-0x10"),
    "plus_sign": ("group", "+2"),
    "leading_zeros": ("group", "0003"),
    "trailing_dot": ("damping", "5."),
    "smallest_normal": ("damping", "2.2250738585072014e-308"),
    "zero_underflowing": ("damping", "0e-400"),
    "largest_double": ("armature", "1.7976931348623157e308"),
}
# ... and refuses these ('number is too large' for ERANGE, 'bad format' for what strtod cannot read whole)
NUMBERS_REJECTED = {
    "subnormal": ("damping", "1e-310"),
    "underflow": ("damping", "1e-400"),
    "overflow": ("damping", "1.8e308"),
    "int32_overflow": ("group", "2147483648"),
    "int32_underflow": ("group", "-2147483649"),
    "underscore": ("damping", "1_0"),
    "arabic_digits": ("damping", "\u0661\u0662"),
    "fullwidth_digit": ("group", "\uff11"),
    "no_break_space": ("damping", "1\u00a0"),
    "hex_int": ("group", "0x10"),
    "real_for_int": ("group", "1.0"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(NUMBERS_ACCEPTED))
def test_number_forms_accepted(name):
    attr, value = NUMBERS_ACCEPTED[name]
    assert_same(_joint(attr, value))


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(NUMBERS_REJECTED))
def test_number_forms_rejected(name):
    attr, value = NUMBERS_REJECTED[name]
    assert_rejected(_joint(attr, value), "joint", attr)


@pytest.mark.oracle
@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "nan(1)"])
def test_non_finite_numbers_unsupported(value):
    """MuJoCo reads inf / nan into the model; numjoco refuses them as unsupported, naming the attribute."""
    xml = _joint("damping", value)
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.UnsupportedError) as e:
        sim.load_model(xml)
    assert (e.value.element, e.value.attribute) == ("joint", "damping")


# ------------------------------------------------------------------------- what tinyxml2 reads and expat did not

TINYXML = {
    "control_char_in_text": model(BODY).replace("<worldbody>", "<worldbody>\x11\x02"),
    "invalid_char_refs": model(BODY).replace("<worldbody>", "<worldbody>&#0;&#1;&#xD800;&#x110000;"),
    "raw_amp_and_lt_in_value": model("<body name='a&b<c'><joint/><geom size='.1'/></body>"),
    "cdata_end_in_text": model(BODY).replace("<worldbody>", "<worldbody>]]>"),
    "nonchar_fffe": model(BODY).replace("<worldbody>", "<worldbody>\ufffe"),
    "nul_ends_the_text": model(BODY) + "\x00trailing garbage",
    "second_root_element": model(BODY) + "<mujoco/>",
    "encoding_declaration_ignored": '<?xml version="1.0" encoding="UTF-16"?>' + model(BODY),
    # myo_sim's myoelbow_1dof6muscles_1dofSoftexo_sim2.xml has name="exoUpperarm"type="box"
    "attribute_after_quote": model("<body name='b'pos='0 0 1'><joint/><geom type=\"box\"size='.1 .2 .3'/></body>"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(TINYXML))
def test_what_tinyxml2_reads(name):
    ours, theirs = sim.load_model(TINYXML[name]), mujoco.MjModel.from_xml_string(TINYXML[name])
    oracle.assert_models_match(ours, theirs)


@pytest.mark.oracle
def test_invalid_utf8_bytes_in_text(tmp_path):
    path = tmp_path / "m.xml"
    path.write_bytes(model(BODY).encode().replace(b"<worldbody>", b"<worldbody>\xba\xff\xfe"))
    oracle.assert_models_match(sim.load_model(str(path)), mujoco.MjModel.from_xml_path(str(path)))


@pytest.mark.oracle
@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_utf16_documents_rejected(tmp_path, encoding):
    path = tmp_path / "m.xml"
    path.write_bytes(model(BODY).encode(encoding))
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(sim.ModelError, match="UTF-8 only"):
        sim.load_model(str(path))


@pytest.mark.oracle
def test_junk_after_the_root_rejected():
    assert_rejected(model(BODY) + "trailing text", None, None)


@pytest.mark.oracle
@pytest.mark.parametrize("attrs", ["name='a'='x'", "name='a'/type='box'", "name='a'1type='box'"])
def test_malformed_attributes_rejected(attrs):
    """Only an attribute name straight after a value's closing quote is read by tinyxml2 (as if spaced)."""
    assert_rejected(model(f"<geom {attrs} size='.1 .1 .1'/>"), None, None)


def test_empty_source_rejected():
    for src in ("", "   \n"):
        with pytest.raises(sim.ModelError, match="empty"):
            sim.load_model(src)


# ------------------------------------------------------------------------------------- compiler agreement


@pytest.mark.oracle
@pytest.mark.parametrize("diag", ["", "diaginertia=''"])
def test_inertial_without_diaginertia(diag):
    """MuJoCo's default inertia is zero: refused for a moving body (mjMINVAL check), fine when inertiafromgeom
    replaces it or the body does not move."""
    moving = model(f"<body><inertial pos='0 0 0' mass='1' {diag}/><joint/><geom size='.1'/></body>")
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(moving)
    with pytest.raises(sim.ModelError, match="mjMINVAL"):
        sim.load_model(moving)
    assert_same(moving.replace("<worldbody>", "<compiler inertiafromgeom='true'/><worldbody>"))
    assert_same(model(f"<body><inertial pos='0 0 0' mass='1' {diag}/><geom size='.1'/></body>"))


@pytest.mark.oracle
def test_replicate_childclass_checked_with_count_zero():
    assert_rejected(
        model("<replicate count='0' childclass='nope'><geom size='.1'/></replicate>"), "replicate", "childclass"
    )


@pytest.mark.oracle
@pytest.mark.parametrize(
    "memory,ok", [("-1", True), ("5m", True), (" 5M ", True), ("05K", True), ("5 M", False), ("1.5K", False)]
)
def test_size_memory_syntax(memory, ok):
    xml = model(head=f"<size memory='{memory}'/>")
    if ok:
        assert_same(xml)
    else:
        assert_rejected(xml, "size", "memory")


@pytest.mark.oracle
@pytest.mark.parametrize("attr", ["njmax", "nconmax"])
def test_unallocatable_buffers_rejected(attr):
    """MuJoCo cannot allocate the arena ('Could not allocate memory'); numjoco names the <size> attribute whose
    buffers would not fit in this machine's memory."""
    xml = model(head=f"<size {attr}='2000000000'/>")
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(xml)
    assert (e.value.element, e.value.attribute) == ("size", attr) and "GiB" in str(e.value)


# ------------------------------------------------------------------------------------------ schema details

UNIQUE_CHILDREN = {
    "inertial": (
        "<mujoco><worldbody><body><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/><inertial pos='0 0 0' "
        "mass='1' diaginertia='1 1 1'/><joint/></body></worldbody></mujoco>",
        "body",
    ),
    "flag": ("<mujoco><option><flag gravity='disable'/><flag energy='enable'/></option></mujoco>", "option"),
    "lengthrange": ("<mujoco><compiler><lengthrange/><lengthrange/></compiler></mujoco>", "compiler"),
    "visual_map": ("<mujoco><visual><map znear='.1'/><map zfar='10'/></visual></mujoco>", "visual"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(UNIQUE_CHILDREN))
def test_unique_children_rejected(name):
    xml, element = UNIQUE_CHILDREN[name]
    assert_rejected(xml, element, None)


# MuJoCo 3.17 does not schema-check a <frame>'s subtree: attributes it does not know are ignored there, and so
# are elements inside leaf elements (its builder never reads them); namespace declarations on the root too
LENIENT = {
    "frame_unknown_attribute": model("<frame accel='0'><body><joint/><geom size='.1'/></body></frame>"),
    "inside_frame_unknown_attribute": model("<frame><body><joint foo='1'/><geom size='.1' bar='2'/></body></frame>"),
    "element_inside_leaf_in_frame": model(
        "<frame><light><foo/></light><body><joint/><geom size='.1'><geom/></geom></body></frame>"
    ),
    "root_xmlns": model(BODY).replace("<mujoco>", "<mujoco xmlns='http://x' xmlns:a='1'>"),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(LENIENT))
def test_what_mujoco_does_not_check(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(LENIENT[name])


@pytest.mark.oracle
def test_checked_outside_frames():
    assert_rejected(model("<body><joint foo='1'/><geom size='.1'/></body>"), "joint", "foo")
    assert_rejected(model("<light><foo/></light>"), "foo", None)
    assert_rejected(model(BODY).replace("<worldbody>", "<worldbody xmlns='1'>"), "worldbody", "xmlns")


@pytest.mark.oracle
def test_top_default_cannot_be_renamed():
    assert_rejected("<mujoco><default class='x'><geom size='.2'/></default><worldbody/></mujoco>", "default", "class")


@pytest.mark.oracle
def test_eulerseq_checked_as_mujoco():
    """Its length when read (every <compiler>), its letters only where an euler angle uses it."""
    assert_rejected("<mujoco><compiler eulerseq='xyzx'/><worldbody/></mujoco>", "compiler", "eulerseq")
    assert_rejected(
        "<mujoco><compiler eulerseq='xyz'/><compiler eulerseq='-1.5'/><worldbody/></mujoco>", "compiler", "eulerseq"
    )
    assert_same("<mujoco><compiler eulerseq='abc'/><worldbody>" + BODY + "</worldbody></mujoco>")
    assert_rejected(
        "<mujoco><compiler eulerseq='abc'/><worldbody><body euler='1 2 3'><joint/><geom size='.1'/>"
        "</body></worldbody></mujoco>",
        "body",
        "euler",
    )


@pytest.mark.oracle
def test_xml_declarations_only_at_the_start():
    assert_same('<?xml version="1.0"?><?pi x?>' + model(BODY))
    assert_same("hello <!-- text before the root -->" + model(BODY))
    assert_same(model(BODY).replace("<worldbody>", "<worldbody><!-- a -- b ---->"))
    for xml in (model(BODY).replace("<worldbody>", "<worldbody><?pi x?>"), "<!-- c --><?pi x?>" + model(BODY)):
        with pytest.raises(ValueError):
            mujoco.MjModel.from_xml_string(xml)
        with pytest.raises(sim.ModelError, match="only allowed at the start"):
            sim.load_model(xml)
