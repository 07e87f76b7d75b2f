/*
 * A program that links hipfile and no HIP runtime opens the driver and prints the status. On a
 * machine without a GPU, gpu.runtime = "auto" finds no runtime with a device, and the library
 * never picks the host emulation by itself: the open fails and its log says what to do.
 */
#include <hipfile.h>
#include <stdio.h>

int main(void)
{
    hipFileError_t status = hipFileDriverOpen();
    printf("%d\n", (int)status.err);
    if (status.err == hipFileSuccess && hipFileDriverClose().err != hipFileSuccess)
        return 1;
    return 0;
}
