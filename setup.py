"""Builds spacy_planar's C loops (the rest of the package is plain Python;
its metadata is in pyproject.toml)."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [Extension("spacy_planar._kernels", ["spacy_planar/_kernels.pyx"], extra_compile_args=["-O3"])],
        compiler_directives={"language_level": "3"},
    )
)
