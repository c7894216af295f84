"""Data sets and their containers: loaders by name or by data card (``load("adult")``,
``load("path/to/card.yaml")``), file resolution with verified downloads, the generalization hierarchies a
data set carries (``Dataset.hierarchies``, :class:`Hierarchy`), the papers' toy tables, Adult's binarization.
"""

from ._card.inputs import (
    input_digests,
)
from .binarize import (
    binarize_adult,
    binarize_table,
)
from .cards import (
    CardError,
    adult_hierarchies,
    builtin_cards,
    check_card,
    hierarchies_from_card,
    load,
    load_card,
    read_card,
)
from .containers import (
    Dataset,
    TokenCorpus,
)
from .hierarchy import (
    Hierarchy,
    HierarchyError,
)
from .labels import (
    format_interval,
    parse_interval,
)
from .loaders import (
    ARX_ADULT_ATTRIBUTES,
    LOADERS,
    load_adult,
    load_adult_hierarchies,
    load_bank_marketing,
    load_fars,
    load_ipums,
    load_pu1,
)
from .manifest import (
    FILES,
    describe_data,
)
from .sources import (
    DataUnavailableError,
    fetch,
    user_cache_dir,
)
from .toys import (
    anatomy_toy,
    feature_selection_table1,
    nbc_figure1_databases,
)

__all__ = [
    "binarize_adult",
    "binarize_table",
    "Dataset",
    "TokenCorpus",
    "FILES",
    "describe_data",
    "load_adult",
    "ARX_ADULT_ATTRIBUTES",
    "load_adult_hierarchies",
    "load_bank_marketing",
    "load_fars",
    "load_ipums",
    "load_pu1",
    "LOADERS",
    "load",
    "CardError",
    "builtin_cards",
    "load_card",
    "check_card",
    "read_card",
    "hierarchies_from_card",
    "input_digests",
    "adult_hierarchies",
    "Hierarchy",
    "HierarchyError",
    "format_interval",
    "parse_interval",
    "DataUnavailableError",
    "user_cache_dir",
    "fetch",
    "feature_selection_table1",
    "nbc_figure1_databases",
    "anatomy_toy",
]
