"""The narrow channel between a graded kernel and the kit's hidden checks.

The checks run in the grading process, outside the sandbox; the student's kernel only answers their
questions (construct, call, read and write attributes) over a Unix socket.  ``wire``, ``client`` and
``fixtures`` are public: they are all of the kit a sandboxed kernel can read.  ``proxy`` and
``checker`` live on the grading side only.
"""

ENV = "AUTOGRADER_CHANNEL"  # the kernel's environment variable naming the checker's socket
