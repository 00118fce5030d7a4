__version__ = "0.1.0"  # The server's version: CMakeLists.txt project(), checked by a test.
