"""mlsys: the science behind every number in the book.

Layers (a lower one never imports a higher one):

* :mod:`mlsys.constants`  – ``ureg`` (information is a dimension), ``Q_``, unit shortcuts,
  constants with sources
* :mod:`mlsys.units`      – the unit rule every formula validates through, and its errors
* :mod:`mlsys.validity`   – the domain of the first-order checkpoint model, and its error
* :mod:`mlsys.formulas`   – validated pure functions returning Quantities or floats
* :mod:`mlsys.weibull`    – the same questions under a Weibull (non-constant) hazard
* :mod:`mlsys.poisson`    – exact confidence intervals for an observed count
* :mod:`mlsys.redundancy` – an N+1 group of parts with repair (redundant power supplies)
  (both on :mod:`mlsys.special`, the incomplete gamma functions)
* :mod:`mlsys.formatting` – display strings, Markdown tables, the ``check`` guard
* :mod:`mlsys.explorers`  – a grid of settings computed at build time, shown as a page
  control that only looks values up (on formatting's ``check`` error)

Beside the formulas, :mod:`mlsys.examples` (on constants alone) holds one valid call of
every formula: documentation, and the ground of the unit tests; it is not re-exported.

Everything public is re-exported here. Plotting lives in ``mlsys.plotting``
(imported explicitly; it pulls in matplotlib).
"""

from mlsys import constants, explorers, formatting, formulas, poisson, redundancy, units, validity, weibull
from mlsys.constants import *  # noqa: F403
from mlsys.units import DimensionalityError, UnitError
from mlsys.validity import *  # noqa: F403
from mlsys.formatting import *  # noqa: F403
from mlsys.formulas import *  # noqa: F403
from mlsys.poisson import *  # noqa: F403
from mlsys.redundancy import *  # noqa: F403
from mlsys.weibull import *  # noqa: F403
from mlsys.explorers import *  # noqa: F403

__all__ = [*constants.__all__, "UnitError", "DimensionalityError", *validity.__all__,
           *formulas.__all__, *poisson.__all__, *redundancy.__all__, *weibull.__all__,
           *formatting.__all__, *explorers.__all__]
