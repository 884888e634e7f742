"""Builds spacy_planar's C loops, one extension per concern (the rest of the
package is plain Python; its metadata is in pyproject.toml).

The seven are compiled side by side on every core, without debug
information. An extension already built in place (the editable install puts
each beside its sources) and newer than its C source is copied rather than
compiled again, as ``make`` would: ``spacy-planar package`` builds
spacy-planar's wheel from the clone (the install is the largest part of the
README's test command's time)."""
import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = {
    "spacy_planar.parser.systems._core": "spacy_planar/parser/systems/_core.pyx",  # the state core
    "spacy_planar.parser.systems._planar": "spacy_planar/parser/systems/_planar.pyx",  # planar moves, tree constraint
    "spacy_planar.parser.oracles._link_costs": "spacy_planar/parser/oracles/_link_costs.pyx",  # planar dynamic oracle
    "spacy_planar.parser.transition._hidden": "spacy_planar/parser/transition/_hidden.pyx",  # the parser's hidden layer
    "spacy_planar.model._lstm": "spacy_planar/model/_lstm.pyx",  # the LSTM gates
    "spacy_planar.model._adam": "spacy_planar/model/_adam.pyx",  # the optimizer's step
    "spacy_planar.trees._mst": "spacy_planar/trees/_mst.pyx",  # maximum spanning trees (the graph-based decoder)
}
CORES = os.cpu_count() or 1


class BuildExt(build_ext):
    def build_extension(self, ext):
        in_place = Path(self.get_ext_filename(ext.name))  # the ABI tag in its name: this Python's
        sources = [Path(s) for s in ext.sources + ext.depends]
        if (not self.inplace and in_place.exists()
                and all(in_place.stat().st_mtime > s.stat().st_mtime for s in sources)):
            target = self.get_ext_fullpath(ext.name)
            self.mkpath(os.path.dirname(target))
            self.copy_file(str(in_place), target)
            return
        super().build_extension(ext)


setup(
    ext_modules=cythonize(
        [Extension(name, [path], extra_compile_args=["-O3", "-g0", "-fno-math-errno"]) for name, path in KERNELS.items()],
        compiler_directives={"language_level": "3"},
        nthreads=CORES,
    ),
    cmdclass={"build_ext": BuildExt},
    options={"build_ext": {"parallel": CORES}},
)
