from .table import compare_table, compare_csv
from .general import check_include_exclude, check_file_existence


def infeasible():
    pass
