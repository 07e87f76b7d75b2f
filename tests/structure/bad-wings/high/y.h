/* The upper wing's header. */
void hf_high(void);
