/* A file of the core outside every wing. */
void hf_stray(void)
{
}
