/*
 * banned.h: functions that invite overflows.  Use snprintf, strlcpy-like
 * bounded copies or struct ofl_buf instead.
 */
#ifndef OFL_BANNED_H
#define OFL_BANNED_H

#undef strcpy
#define strcpy(a, b)	sorry_strcpy_is_banned
#undef strcat
#define strcat(a, b)	sorry_strcat_is_banned
#undef sprintf
#define sprintf(...)	sorry_sprintf_is_banned
#undef vsprintf
#define vsprintf(...)	sorry_vsprintf_is_banned
#undef strtok
#define strtok(a, b)	sorry_strtok_is_banned
#undef gets
#define gets(a)		sorry_gets_is_banned
#undef atoi
#define atoi(a)		sorry_atoi_is_banned

#endif
