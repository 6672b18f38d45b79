int bad(void)
{
	return undefined_name;
}
