/*
 * The pause inside a spin-wait, shared by the core's executor and the fallback's pipeline: it
 * tells the CPU the loop is waiting, which saves power and lets a sibling hyperthread run.
 */
#ifndef HF_PLUGIN_COMMON_CPU_RELAX_H
#define HF_PLUGIN_COMMON_CPU_RELAX_H

/** One pause of a spin-wait loop (PAUSE on x86, YIELD on Arm; nothing elsewhere). */
static inline void hfp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif /* HF_PLUGIN_COMMON_CPU_RELAX_H */
