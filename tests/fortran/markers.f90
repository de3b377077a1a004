! Fortran markers under the shim (tests/fortran/run.sh): known numbers of
! each region through every form, on the main thread and 4 OpenMP
! threads. Prints one line, the same with or without the shim but for
! its last word.
module work
  use pmcshim
  implicit none
contains
  ! A scoped region, left by RETURN half the time.
  integer function scoped(i)
    integer, intent(in) :: i
    type(pmcshim_scope) :: s

    call s%begin("f_scope")
    call s%begin("f_scope")      ! a second begin of an open scope: ignored
    scoped = 1
    if (mod(i, 2) == 0) return
    scoped = 2
  end function scoped

  recursive integer function fib(n) result(r)
    integer, intent(in) :: n
    type(pmcshim_scope) :: s

    call s%begin("f_fib")
    if (n < 2) then
       r = n
    else
       r = fib(n - 1) + fib(n - 2)
    end if
  end function fib
end module work

program markers
  use pmcshim
  use work
  implicit none
  integer :: i, sum, id, f

  sum = 0
  do i = 1, 1000
     call pmcshim_begin("f_loop")
     sum = sum + i
     call pmcshim_end("f_loop")
  end do
  do i = 1, 300
     sum = sum + scoped(i)
  end do
  do i = 1, 20
     block
       type(pmcshim_scope) :: b
       call b%begin("f_block")
       call pmcshim_begin("f_inner")
       call pmcshim_end("f_inner")
     end block
  end do
  id = pmcshim_region("f_id")
  do i = 1, 50
     call pmcshim_begin_id(id)
     call pmcshim_end_id(id)
  end do
  call pmcshim_begin("a name longer than the module's own buffer of 255 characters: " // &
       repeat("x", 250))
  call pmcshim_end("a name longer than the module's own buffer of 255 characters: " // &
       repeat("x", 250))
  f = fib(10)
  !$omp parallel num_threads(4) private(i)
  do i = 1, 100
     call pmcshim_begin("f_omp")
     call pmcshim_end("f_omp")
  end do
  !$omp end parallel
  print '(a,i0,a,i0,a,l1)', "markers: sum ", sum, ", fib(10) ", f, ", under pmcshim: ", &
       pmcshim_active()
end program markers
