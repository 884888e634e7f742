"""Builds spacy_planar's C loops, one extension per concern (the rest of the
package is plain Python; its metadata is in pyproject.toml)."""
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = {
    "spacy_planar.systems._core": "spacy_planar/systems/_core.pyx",  # the state core
    "spacy_planar.systems._planar": "spacy_planar/systems/_planar.pyx",  # planar moves, tree constraint
    "spacy_planar.oracles._link_costs": "spacy_planar/oracles/_link_costs.pyx",  # planar dynamic oracle
    "spacy_planar.model._hidden": "spacy_planar/model/_hidden.pyx",  # the parser's hidden layer
}

setup(
    ext_modules=cythonize(
        [Extension(name, [path], extra_compile_args=["-O3"]) for name, path in KERNELS.items()],
        compiler_directives={"language_level": "3"},
    )
)
