"""Every kernel variant bit-exact with its family's __ref on the an505 firmware
(tests/kernels/variants_on_target.py)."""
from variants_on_target import board_tests

(test_variant_on_board, test_board_run_ok,
 test_firmware_copies_every_initialized_ram_section) = board_tests("an505")
