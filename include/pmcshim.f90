! pmcshim region markers for Fortran (Fortran 2003, ISO_C_BINDING).
!
!   use pmcshim
!   call pmcshim_begin("solve");  ...;  call pmcshim_end("solve")
!
!   subroutine step()                    ! a scoped region: ended when the
!     type(pmcshim_scope) :: s           ! procedure or BLOCK is left, by
!     call s%begin("step")               ! its end or a RETURN (its final
!     ...                                ! subroutine ends the region)
!   end subroutine
!
!   integer :: id                        ! for the hottest loops: the name
!   id = pmcshim_region("inner")         ! looked up once, then by its id
!   call pmcshim_begin_id(id); ...; call pmcshim_end_id(id)
!
! Compile this file with the program (module files are compiler-specific,
! so none is installed):
!   gfortran $(pkg-config --variable=fortran_module pmcshim) app.f90 \
!     $(pkg-config --libs pmcshim)
! (the module first: app.f90's USE needs the pmcshim.mod it writes).
! The program does not link against the shim: the first marker looks it up
! with dlsym(RTLD_DEFAULT, "pmcshim_api") (libc; -ldl on glibc older than
! 2.34). Run without LD_PRELOAD=libpmcshim.so (or pmcshim(1)), every marker
! is a test of one module variable. A scope declared in the main program is
! never finalized (its variables are SAVEd): scope a BLOCK or a procedure
! instead. Regions nest per thread; an end closes the thread's innermost
! open region. See pmcshim(3).
module pmcshim
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_ptr, c_funptr, c_null_ptr, &
       c_null_char, c_intptr_t, c_associated, c_f_pointer, c_f_procpointer
  implicit none
  private
  public :: pmcshim_begin, pmcshim_end, pmcshim_region, pmcshim_begin_id, pmcshim_end_id, &
       pmcshim_active, pmcshim_scope

  ! A region open until the variable goes out of scope.
  type :: pmcshim_scope
     private
     integer(c_int) :: id = 0
     logical :: open = .false.
   contains
     procedure :: begin => scope_begin
     final :: scope_final
  end type pmcshim_scope

  ! struct pmcshim_api (include/pmcshim.h), version 1; fields are only
  ! ever added after these.
  type, bind(c) :: api_t
     integer(c_int) :: version, size
     type(c_funptr) :: region, begin_id, end_id, begin, end
  end type api_t

  integer(c_int), parameter :: api_version = 1
  ! Buffer for a name and its NUL: longer names take a temporary.
  integer, parameter :: name_max = 255

  abstract interface
     function get_api_fn(version) bind(c) result(api)
       import :: c_int, c_ptr
       integer(c_int), value :: version
       type(c_ptr) :: api
     end function get_api_fn
     function region_fn(name) bind(c) result(id)
       import :: c_char, c_int
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int) :: id
     end function region_fn
     subroutine id_fn(id) bind(c)
       import :: c_int
       integer(c_int), value :: id
     end subroutine id_fn
     subroutine name_fn(name) bind(c)
       import :: c_char
       character(kind=c_char), intent(in) :: name(*)
     end subroutine name_fn
  end interface

  interface
     ! RTLD_DEFAULT is the null handle (glibc, musl).
     function c_dlsym(handle, symbol) bind(c, name="dlsym") result(p)
       import :: c_ptr, c_char, c_funptr
       type(c_ptr), value :: handle
       character(kind=c_char), intent(in) :: symbol(*)
       type(c_funptr) :: p
     end function c_dlsym
  end interface

  ! The shim's table, found by the first marker: 0 not yet asked, 1 no
  ! shim, else its address. One word, so that threads racing to ask store
  ! the same answer and never see half of one.
  integer(c_intptr_t), save :: where = 0

contains

  integer(c_intptr_t) function ask()
    type(c_funptr) :: sym
    type(c_ptr) :: p
    procedure(get_api_fn), pointer :: get

    ask = 1
    sym = c_dlsym(c_null_ptr, "pmcshim_api" // c_null_char)
    if (.not. c_associated(sym)) return
    call c_f_procpointer(sym, get)
    p = get(api_version)
    if (c_associated(p)) ask = transfer(p, ask)
  end function ask

  ! True, with api the shim's table, when the program runs under the shim.
  logical function found(api)
    type(api_t), pointer, intent(out) :: api
    integer(c_intptr_t) :: w

    w = where
    if (w == 0) then
       w = ask()
       where = w
    end if
    found = w /= 1
    if (found) call c_f_pointer(transfer(w, c_null_ptr), api)
  end function found

  ! True when the program runs under the shim.
  logical function pmcshim_active()
    type(api_t), pointer :: api

    pmcshim_active = found(api)
  end function pmcshim_active

  ! call the name marker fn with name and its NUL
  subroutine by_name(fn, name)
    type(c_funptr), intent(in) :: fn
    character(len=*), intent(in) :: name
    procedure(name_fn), pointer :: mark
    character(kind=c_char, len=name_max + 1) :: buf
    integer :: n

    call c_f_procpointer(fn, mark)
    n = len(name)
    if (n <= name_max) then
       buf(1:n) = name
       buf(n + 1:n + 1) = c_null_char
       call mark(buf)
    else
       call mark(name // c_null_char)
    end if
  end subroutine by_name

  ! Begin region name on this thread.
  subroutine pmcshim_begin(name)
    character(len=*), intent(in) :: name
    type(api_t), pointer :: api

    if (found(api)) call by_name(api%begin, name)
  end subroutine pmcshim_begin

  ! End region name, the innermost open one of this thread.
  subroutine pmcshim_end(name)
    character(len=*), intent(in) :: name
    type(api_t), pointer :: api

    if (found(api)) call by_name(api%end, name)
  end subroutine pmcshim_end

  ! The id of name, for pmcshim_begin_id/pmcshim_end_id (0: no shim).
  integer(c_int) function pmcshim_region(name)
    character(len=*), intent(in) :: name
    procedure(region_fn), pointer :: region
    type(api_t), pointer :: api

    pmcshim_region = 0
    if (.not. found(api)) return
    call c_f_procpointer(api%region, region)
    if (len(name) <= name_max) then
       block
         character(kind=c_char, len=name_max + 1) :: buf
         buf(1:len(name)) = name
         buf(len(name) + 1:len(name) + 1) = c_null_char
         pmcshim_region = region(buf)
       end block
    else
       pmcshim_region = region(name // c_null_char)
    end if
  end function pmcshim_region

  ! call the id marker fn with id
  subroutine by_id(fn, id)
    type(c_funptr), intent(in) :: fn
    integer(c_int), intent(in) :: id
    procedure(id_fn), pointer :: mark

    call c_f_procpointer(fn, mark)
    call mark(id)
  end subroutine by_id

  subroutine pmcshim_begin_id(id)
    integer(c_int), intent(in) :: id
    type(api_t), pointer :: api

    if (found(api)) call by_id(api%begin_id, id)
  end subroutine pmcshim_begin_id

  subroutine pmcshim_end_id(id)
    integer(c_int), intent(in) :: id
    type(api_t), pointer :: api

    if (found(api)) call by_id(api%end_id, id)
  end subroutine pmcshim_end_id

  ! intent(inout), not out: an intent(out) scope would be finalized (and
  ! end a region) on entry.
  subroutine scope_begin(s, name)
    class(pmcshim_scope), intent(inout) :: s
    character(len=*), intent(in) :: name

    if (s%open) return
    if (.not. pmcshim_active()) return
    s%id = pmcshim_region(name)
    call pmcshim_begin_id(s%id)
    s%open = .true.
  end subroutine scope_begin

  subroutine scope_final(s)
    type(pmcshim_scope), intent(inout) :: s

    if (.not. s%open) return
    s%open = .false.
    call pmcshim_end_id(s%id)
  end subroutine scope_final

end module pmcshim
