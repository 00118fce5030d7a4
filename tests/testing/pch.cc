// The translation unit that compiles the tests' precompiled header
// (cmake/HptuneHelpers.cmake, hptune_test_pch): it has no code of its own.
