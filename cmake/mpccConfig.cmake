# find_package(mpcc CONFIG): installed by `make install` into PREFIX/share/mpcc/cmake/.
include("${CMAKE_CURRENT_LIST_DIR}/mpcc.cmake")
