_block = bytearray(64 * 2 ** 30)
