"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),
optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as
measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).
Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the
categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""

EXPECTED = {'dm_control/built/manipulation_lift_large_box': {'reason': 'load: ModelError: model.xml:51 <texture> attribute '
                                                            "'class': unknown or unsupported attribute"},
 'dm_control/built/manipulation_reach_site': {'reason': 'load: ModelError: model.xml:50 <texture> attribute '
                                                        "'class': unknown or unsupported attribute"},
 'dm_control/built/manipulation_stack_2_bricks': {'reason': 'load: ModelError: model.xml:138 <texture> attribute '
                                                            "'class': unknown or unsupported attribute"},
 'dm_control/built/task_cmu_humanoid_run_walls': {'reason': 'load: ModelError: model.xml:34 <texture> attribute '
                                                            "'class': unknown or unsupported attribute"},
 'dm_control/built/task_rodent_escape_bowl': {'reason': 'load: ModelError: model.xml:157 <texture> attribute '
                                                        "'class': unknown or unsupported attribute"},
 'dm_control/built/walker_cmu_humanoid_position_controlled': {'bounds': {'traj_err': 14.0},
                                                              'reason': 'trajectory err 1.4 (first above 1e-06 at '
                                                                        'step 480)'},
 'dm_control/built/walker_fruitfly_v2': {'reason': 'load: UnsupportedError: noslip_iterations > 0: the noslip '
                                                   'solver is not implemented'},
 'dm_control/built/walker_jumping_ball': {'reason': "load: ModelError: model.xml:15 <texture> attribute 'class': "
                                                    'unknown or unsupported attribute'},
 'dm_control/composer/arena.xml': {'reason': 'load: UnsupportedError: noslip_iterations > 0: the noslip solver is '
                                             'not implemented'},
 'dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_defaults.xml': {'reason': 'load: '
                                                                                                  'UnsupportedError: '
                                                                                                  'noslip_iterations '
                                                                                                  '> 0: the noslip '
                                                                                                  'solver is not '
                                                                                                  'implemented'},
 'dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_fused.xml': {'crash': True,
                                                                                     'reason': 'slow load: '
                                                                                               'sim.load_model '
                                                                                               'still running '
                                                                                               'after 180 s '
                                                                                               '(MuJoCo: 9.20 s)'},
 'dm_control/locomotion/walkers/assets/dog_v2/dog.xml': {'reason': 'load: UnsupportedError: noslip_iterations > 0: '
                                                                   'the noslip solver is not implemented'},
 'dm_control/locomotion/walkers/assets/dog_v2/dog_base.xml': {'reason': 'load: UnsupportedError: noslip_iterations '
                                                                        '> 0: the noslip solver is not '
                                                                        'implemented'},
 'dm_control/locomotion/walkers/assets/fruitfly_v2/floor.xml': {'crash': True,
                                                                'reason': 'slow load: sim.load_model still running '
                                                                          'after 180 s (MuJoCo: 3.55 s)'},
 'dm_control/locomotion/walkers/assets/fruitfly_v2/fruitfly.xml': {'reason': 'load: UnsupportedError: '
                                                                             'noslip_iterations > 0: the noslip '
                                                                             'solver is not implemented'},
 'dm_control/locomotion/walkers/assets/humanoid_CMU_V2019.xml': {'bounds': {'traj_err': 0.34},
                                                                 'reason': 'trajectory err 0.034 (first above '
                                                                           '1e-06 at step 702)'},
 'dm_control/suite/dog.xml': {'crash': True,
                              'reason': 'slow load: sim.load_model still running after 180 s (MuJoCo: 6.18 s)'},
 'robosuite_models/assets/robots/b1/robot.xml': {'crash': True,
                                                 'reason': 'slow load: sim.load_model still running after 180 s '
                                                           '(MuJoCo: 18.90 s)'},
 'robosuite_models/assets/robots/g1/robot.xml': {'crash': True,
                                                 'reason': 'slow load: sim.load_model still running after 180 s '
                                                           '(MuJoCo: 6.52 s)'},
 'robosuite_models/assets/robots/go2/robot.xml': {'crash': True,
                                                  'reason': 'slow load: sim.load_model still running after 180 s '
                                                            '(MuJoCo: 12.19 s)'},
 'robosuite_models/assets/robots/h1/robot.xml': {'crash': True,
                                                 'reason': 'slow load: sim.load_model still running after 180 s '
                                                           '(MuJoCo: 5.67 s)'},
 'robosuite_models/assets/robots/pr2/robot.xml': {'crash': True,
                                                  'reason': 'slow load: sim.load_model still running after 180 s '
                                                            '(MuJoCo: 1.65 s)'},
 'robosuite_models/assets/robots/vx300s/robot.xml': {'bounds': {'fields': 71},
                                                     'reason': 'fields: 71 differ (bvh_aabb, bvh_nodeid, '
                                                               'mesh_graphadr, mesh_hull, mesh_polymapadr, '
                                                               'mesh_polymapnum...)'},
 'robosuite_models/assets/robots/yumi/robot.xml': {'crash': True,
                                                   'reason': 'slow load: sim.load_model still running after 180 s '
                                                             '(MuJoCo: 16.40 s)'},
 'robosuite_models/assets/robots/z1/robot.xml': {'crash': True,
                                                 'reason': 'slow load: sim.load_model still running after 180 s '
                                                           '(MuJoCo: 10.94 s)'}}
