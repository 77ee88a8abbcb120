"""COWP's six tasks, their situations and the acceptability table: moved to
``groundplan.core.datasets.cowp.spec`` (the cowp dataset reads them too, and datasets do not
import method internals); re-exported here so old imports keep working."""

from groundplan.core.datasets.cowp.spec import (
    APPLIANCES_FILE,
    CATEGORY_FILES,
    DATA_SUBDIR,
    SITUATIONS_FILE,
    TASK_IDS,
    Situation,
    TaskSpec,
    categories,
    cowp_data_dir,
    nl_word,
    scenes_dir,
    task_domain,
    task_spec,
    word_list,
)

__all__ = ["TASK_IDS", "Situation", "TaskSpec", "task_spec", "task_domain", "word_list", "categories",
           "cowp_data_dir", "scenes_dir", "nl_word", "APPLIANCES_FILE", "SITUATIONS_FILE", "DATA_SUBDIR", "CATEGORY_FILES"]
