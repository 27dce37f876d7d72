from .cli import main
from .leave import leave

try:
    status = main()
except SystemExit as e:
    status = e.code
leave(status)
