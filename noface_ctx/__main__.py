import sys

from noface_ctx.cli import main

sys.exit(main())
