"""Fields of the convex narrowphase (GJK/EPA/multi-contact for meshes, ellipsoids, cylinders) and height fields.

Declares the mesh / height-field Model arrays the convex kernels read and their per-world scratch.
"""

MODEL_SCALARS = ['nmesh', 'nhfield']
MODEL_ARRAYS = [
    ('mesh_vertadr', 1, 'i'), ('mesh_vertnum', 1, 'i'), ('mesh_vert', 2, 'f'),
    ('mesh_faceadr', 1, 'i'), ('mesh_facenum', 1, 'i'), ('mesh_face', 2, 'i'),
    ('mesh_graphadr', 1, 'i'), ('mesh_graph', 1, 'i'),
    ('mesh_polynum', 1, 'i'), ('mesh_polyadr', 1, 'i'), ('mesh_polynormal', 2, 'f'),
    ('mesh_polyvertadr', 1, 'i'), ('mesh_polyvertnum', 1, 'i'), ('mesh_polyvert', 1, 'i'),
    ('mesh_polymapadr', 1, 'i'), ('mesh_polymapnum', 1, 'i'), ('mesh_polymap', 1, 'i'),
    ('hfield_size', 2, 'f'), ('hfield_nrow', 1, 'i'), ('hfield_ncol', 1, 'i'), ('hfield_adr', 1, 'i'),
    ('hfield_data', 1, 'f'),
]
DATA_ARRAYS = []


def model_arrays(m):
    """Derived convex-collision model arrays (everything else is read from m by name)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes of the convex-collision scratch."""
    return {}
