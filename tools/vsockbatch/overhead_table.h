/* trace, kernel, payload bytes, +% guest instructions per byte */
