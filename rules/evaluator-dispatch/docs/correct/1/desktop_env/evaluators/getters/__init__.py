from .file import get_vm_file, get_local_file
from .misc import get_rule
